// The per-example gradient of DP-SGD (Abadi et al. 2016, Algorithm 1; Mohapatra et al. 2022 Alg. 2
// lines 6-7) for K linear models trained together: one-vs-all over K classes (K = 1: one
// binary model). The per-example gradient of row (x, c) is the whole K x d matrix
//   G = [ l'(z_k) y_k x ]_k,  z_k = y_k <w_k, x>,  y_k = +1 if k is the row's class else -1,
// clipped JOINTLY: G / max(1, ||G||_F / C). Adding or removing a row therefore changes the
// lot's sum of clipped gradients by one matrix of Frobenius norm <= C: the L2 sensitivity
// of the sum, under add/remove-one, is C for all K models together. One Gaussian
// mechanism N(0, (sigma C)^2 I_{Kd}) covers them all; no budget split over the classes.
//
// Labels: K = 1 takes label 1 (positive) or 0 (negative) as y = +1 / -1; K > 1 takes the
// class index in [0, K).
#pragma once

#include "core/loss/loss.h"

namespace dptrain::dpsgd {

struct LinearModels {
  int dim;     // d
  int models;  // K
  LossKind loss;
  double huber_h;
};

// sum (K*d, row k = model k) += the jointly clipped per-example gradient of (x, label) at
// theta (K*d). Returns ||G||_F before clipping. Error(InvalidData) for a label out of range.
double add_clipped_gradient(const LinearModels& m, const double* theta, const double* x, int label, double clip,
                            double* sum);

}  // namespace dptrain::dpsgd
