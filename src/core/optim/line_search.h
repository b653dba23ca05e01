// Backtracking line search along a descent direction p from x, in reverse
// communication (trial() is the next point to evaluate, judge() takes F there).
//
// A trial step t is accepted when
//   (a) F(x + t p) <= F(x) + c1 t <grad F(x), p>  (Armijo), or, when the
//       predicted decrease t |<grad F(x), p>| is within the rounding error of
//       F (near the minimum, where differences of F are noise):
//   (b) F(x + t p) <= F(x) + value_error and ||grad F(x + t p)|| < ||grad F(x)||.
// Rule (b) is what lets the optimizer reach gradient norms of 1/n^2: there a
// Newton or quasi-Newton step still shrinks the gradient reliably while F
// no longer changes in double precision. Otherwise the step shrinks by
// safeguarded quadratic interpolation into [0.1 t, 0.5 t] (t/10 after an
// overflow; halving while F's differences are noise); below kMinStep times
// the initial step the search is stuck.
#pragma once

#include <Eigen/Core>

#include "core/optim/evaluation.h"

namespace dptrain::optim {

class Backtracking {
 public:
  enum class Verdict { Accept, Retry, Stuck };
  static constexpr double kArmijo = 1e-4;
  static constexpr double kMinStep = 1e-12;
  // Predicted decreases below this multiple of F's rounding error count as drowned.
  static constexpr double kDrowned = 100;

  // `at_x` must be finite; `direction` must be a descent direction (throws otherwise).
  void start(const Eigen::VectorXd& x, const Evaluation& at_x, Eigen::VectorXd direction, double initial_step);
  Eigen::VectorXd trial() const { return x_ + t_ * p_; }
  double step() const { return t_; }
  Verdict judge(const Evaluation& at_trial);
  // Steps accepted by rule (b) so far (over every start()).
  int drowned_accepts() const { return drowned_accepts_; }

 private:
  Eigen::VectorXd x_, p_;
  double fx_ = 0, fx_error_ = 0, slope_ = 0, gx_norm_ = 0;
  double t_ = 1, t0_ = 1;
  int drowned_accepts_ = 0;
};

}  // namespace dptrain::optim
