// algorithm => 'amp': Approximate Minima Perturbation (Iyengar, Near, Song,
// Thakkar, Thakurta, Wang, "Towards Practical Differentially Private Convex
// Optimization", IEEE S&P 2019, Algorithm 1; docs/amp.md). This file is the
// plan: every constant of Algorithm 1, from public inputs only (n, d, K, the
// arguments), before any feature value is read.
//
// Per one-vs-all model (budget epsilon/K, delta/K; basic composition):
//   eps2 = f eps, delta2 = f delta, eps1 = eps - eps2, delta1 = delta - delta2,
//   eps3 = f1 eps1                                          (Alg. 1 step 1)
//   Lambda = r beta / (eps1 - eps3) + n lambda               (step 2)
//   sigma1 = (2L/n)(1 + sqrt(2 ln(1/delta1))) / eps3          (step 3, Lemma IV.1)
//   b1 ~ N(0, sigma1^2 I), drawn before the data is read
//   L_priv(t) = (1/n) sum_i l(t; d_i) + (Lambda/(2n))||t||^2 + <b1, t>   (step 4)
//   t_approx with ||grad L_priv(t_approx)|| <= gamma, checked on an exact
//   evaluation; otherwise nothing is released                (step 5)
//   sigma2 = (2 n gamma / Lambda)(1 + sqrt(2 ln(1/delta2))) / eps2      (step 6)
//   release t_approx + b2, b2 ~ N(0, sigma2^2 I)               (step 7)
//
// Two corrections to the paper (derivations in docs/amp.md):
//   * sigma2: Lemma IV.3 bounds ||t_approx - t_min|| <= n gamma / Lambda for
//     ONE data set; the released quantity t_approx - t_min moves by up to
//     twice that between neighbours, so the sensitivity is 2 n gamma / Lambda
//     (the paper and its code use n gamma / Lambda).
//   * Lambda: the determinant ratio of Lemma IV.2 is at most
//     prod(1 + a_i/Lambda) <= exp(r beta / Lambda), so Lambda = r beta /
//     (eps1 - eps3) suffices for any eps1 - eps3 > 0 (the paper's chain
//     through Lambda / (Lambda - r beta) does not hold as written).
// sigma1 keeps the constant of Lemma III.1 (not the analytic Gaussian): the
// proof of Lemma IV.1 needs a bound on the density ratio with probability
// 1 - delta1, which that constant gives and an exact (epsilon, delta)
// calibration does not.
//
// Losses (rows clipped to ||x|| <= L, |l'| <= 1, so l is L-Lipschitz):
//   logistic  beta = L^2 (the paper's; L^2/4 is tight), Hessian continuous
//   huber_svm beta = L^2 / (2h); its Hessian is discontinuous at |1 - z| = h,
//             so Theorem 1 (which assumes a continuous Hessian) does not
//             strictly cover it: the plan records that.
// r = 2: a GLM's per-row Hessian l''(z) x x^T has rank 1, so the difference of
// two rows' Hessians has rank <= 2 (Theorem 2's remark).
//
// Hyperparameter-free AMP (paper Sec. V-A) is the default when no AMP option
// is given: L = 1, gamma = 1/n^2, f = 0.01, and f1 from the paper's fit
//   p <  n/10 (low-dimensional):  f1 = max(min(0.887 + 0.019 eps1^-0.373, 0.99), 1 - 0.99/eps1)
//   p >= n/10 (high-dimensional): f1 = max(0.97, 1 - 0.99/eps1)
// with eps1 = 0.99 eps (eps the per-model budget). The paper says only "n >> p"
// versus "n ~ p"; the n/10 threshold is ours (p and n are public).
// Tuned AMP: options f, f1, L, gamma (each omitted one keeps its
// hyperparameter-free value); the lambda argument adds an ordinary L2 term
// (lambda/2)||t||^2, which is Algorithm 1 with Lambda larger by n lambda
// (step 2 allows any Lambda >= r beta / (eps1 - eps3)).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/algorithms/optimizer_arguments.h"
#include "core/loss/loss.h"
#include "core/model.h"
#include "core/optim/solver_settings.h"
#include "core/privacy/random_source.h"
#include "core/training/config.h"

namespace dptrain::amp {

// --- the formulas (each pinned by a unit test to a hand computation) ---------

// Algorithm 1 step 2 (with the corrected Lemma IV.2): r beta / (eps1 - eps3).
// Throws Error(InvalidParameter) unless eps1 - eps3 > 0.
double minimum_regularization(int rank_bound, double smoothness, double eps1, double eps3);

// Algorithm 1 step 3 with Lemma III.1's constant:
// (2L/n)(1 + sqrt(2 ln(1/delta1))) / eps3.
double objective_noise_sigma(double lipschitz, std::int64_t rows, double eps3, double delta1);

// Algorithm 1 step 6 with the corrected sensitivity 2 n gamma / Lambda:
// (2 n gamma / Lambda)(1 + sqrt(2 ln(1/delta2))) / eps2.
double output_noise_sigma(std::int64_t rows, double gamma, double regularization, double eps2, double delta2);

// Sec. V-A: f1 as a function of eps1 (low- or high-dimensional fit).
double hyperparameter_free_f1(double eps1, bool high_dimensional);

// Our reading of the paper's "n >> p" (low) versus "n ~ p" (high): p >= n/10.
bool is_high_dimensional(int dim, std::int64_t rows);

// Smoothness beta of the loss for rows clipped to ||x|| <= L (see above).
double loss_smoothness(LossKind loss, double lipschitz, double huber_h);

// --- the plan ----------------------------------------------------------------

// The public facts (loss, n, d = p, K) and every constant of Algorithm 1.
struct AmpPlan : GlmProblem {
  // budget: total, and per model (epsilon/K, delta/K)
  double epsilon = 0, delta = 0;
  double model_epsilon = 0, model_delta = 0;

  // hyperparameters (hyperparameter_free: all four from Sec. V-A)
  bool hyperparameter_free = true;
  bool f1_from_fit = true;        // f1 not given: Sec. V-A's fit for eps1
  bool high_dimensional = false;  // p >= n/10: which of the two fits
  double f = 0;                   // eps2 / eps = delta2 / delta
  double f1 = 0;                  // eps3 / eps1
  double lipschitz = 0;           // L, the row clipping bound
  double gamma = 0;               // gradient norm bound of step 5
  double lambda = 0;              // extra L2 term (the lambda argument), 0 = the paper's objective

  // Algorithm 1, per model
  double eps1 = 0, eps2 = 0, eps3 = 0, delta1 = 0, delta2 = 0;
  double smoothness = 0;          // beta
  int rank_bound = 2;             // r
  double minimum_regularization = 0;  // r beta / (eps1 - eps3)
  double regularization = 0;          // Lambda = minimum + n lambda
  double sigma1 = 0, sigma2 = 0;
  bool theorem_covers_loss = true;    // false for Huber (discontinuous Hessian)

  optim::SolverSettings solver;       // options.optimizer, options.max_evaluations

  std::vector<std::string> warnings;

  // L_priv's L2 coefficient Lambda / n (its strong convexity).
  double l2_coefficient() const { return regularization / static_cast<double>(rows); }
  // plan.privacy of the model metadata.
  nlohmann::json privacy_json() const;
};

// The checks of make_plan that need no fact of the data: epsilon and delta > 0
// given, no SGD-only argument, only known options, each in its range.
void check_arguments(const TrainingConfig& config);

// Validates the arguments (check_arguments and the public data facts) and
// computes every constant; throws
// Error(InvalidParameter) before any data is read.
AmpPlan make_plan(const TrainingConfig& config);

// Step 3: K x d objective noise b1, row k for model k (drawn before the data is read).
WeightMatrix draw_objective_noise(const AmpPlan& plan, privacy::RandomSource& rng);

// Step 6-7: adds b2 ~ N(0, sigma2^2 I), independently per model, to the K x d weights.
void add_output_noise(const AmpPlan& plan, WeightMatrix& weights, privacy::RandomSource& rng);

}  // namespace dptrain::amp
