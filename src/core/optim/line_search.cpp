#include "core/optim/line_search.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/optim/minimizer.h"

namespace dptrain::optim {

void Backtracking::start(const Eigen::VectorXd& x, const Evaluation& at_x, Eigen::VectorXd direction,
                         double initial_step) {
  x_ = x;
  p_ = std::move(direction);
  fx_ = at_x.value;
  fx_error_ = at_x.value_error;
  gx_norm_ = at_x.gradient.norm();
  slope_ = at_x.gradient.dot(p_);
  if (!(slope_ < 0)) fail(ErrorKind::Internal, "line search: not a descent direction");
  if (!(initial_step > 0) || !std::isfinite(initial_step)) fail(ErrorKind::Internal, "line search: bad step");
  t_ = t0_ = initial_step;
}

Backtracking::Verdict Backtracking::judge(const Evaluation& e) {
  double next = 0.1 * t_;  // after an overflow
  if (finite(e)) {
    const double predicted = t_ * slope_;  // < 0
    if (e.value <= fx_ + kArmijo * predicted) return Verdict::Accept;
    const double noise = std::max(fx_error_, e.value_error);
    const bool drowned = -predicted <= kDrowned * noise;
    if (drowned && e.value <= fx_ + noise && e.gradient.norm() < gx_norm_) {
      ++drowned_accepts_;
      return Verdict::Accept;
    }
    // Minimizer of the quadratic through F(x), F'(x) along p and F(x + t p);
    // halving when F's differences are noise.
    const double curvature = e.value - fx_ - predicted;
    next = !drowned && curvature > 0 ? std::clamp(-slope_ * t_ * t_ / (2 * curvature), 0.1 * t_, 0.5 * t_)
                                     : 0.5 * t_;
  }
  t_ = next;
  return t_ < kMinStep * t0_ ? Verdict::Stuck : Verdict::Retry;
}

}  // namespace dptrain::optim
