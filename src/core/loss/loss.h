// Convex losses of a linear model on (x, y), y in {-1, +1}, as functions of
// the margin z = y * <w, x>, plus the constants the privacy analyses need
// (Wu et al. 2017, §2.1). The L2 regularizer (lambda/2)||w||^2 is added by the
// SGD step, not here.
#pragma once

#include <string>

namespace dptrain {

enum class LossKind { Logistic = 0, HuberSvm = 1 };

constexpr double kDefaultHuberH = 0.1;  // Bolt-on and AMP both use h = 0.1

LossKind parse_loss(const std::string& name);  // "logistic" | "huber" | "huber_svm"
std::string loss_name(LossKind kind);

// l(z) and dl/dz. The gradient w.r.t. w is dl/dz * y * x. A NaN margin (an
// overflow to inf - inf of finite weights on a finite row) is taken as 0.
double loss_value(LossKind kind, double z, double huber_h = kDefaultHuberH);
double loss_derivative(LossKind kind, double z, double huber_h = kDefaultHuberH);
// d^2 l / dz^2 (the Hessian w.r.t. w is this times x x^T). Logistic:
// s(z) s(-z) with s the sigmoid, in (0, 1/4]. Huber: 1/(2h) on the quadratic
// piece [1 - h, 1 + h], 0 elsewhere (a jump: the Hessian is discontinuous).
double loss_second_derivative(LossKind kind, double z, double huber_h = kDefaultHuberH);

// Constants of the regularized per-row objective l(z) + (lambda/2)||w||^2 on
// the ball ||w|| <= radius, for rows with ||x|| <= feature_bound:
//   L     Lipschitz constant       = L_x + lambda * R          (R = radius)
//   beta  smoothness               logistic: L_x^2 + lambda (the papers'
//                                  convention; the tight value is L_x^2/4 + lambda,
//                                  the looser one only makes steps smaller)
//                                  huber:    L_x^2 / (2h) + lambda
//   gamma strong convexity         = lambda
// With lambda = 0 the radius does not enter (pass radius = 0).
struct LossConstants {
  double lipschitz;
  double smoothness;
  double strong_convexity;
};

LossConstants loss_constants(LossKind kind, double feature_bound, double lambda, double radius,
                             double huber_h = kDefaultHuberH);

}  // namespace dptrain
