#include "core/optim/minimizer.h"

#include <cmath>

#include "core/error.h"

namespace dptrain::optim {

bool finite(const Evaluation& e) {
  return std::isfinite(e.value) && e.gradient.allFinite() && (e.hessian.size() == 0 || e.hessian.allFinite());
}

Minimizer::Minimizer(Eigen::VectorXd start, StopRule rule) : rule_(rule), point_(std::move(start)) {
  if (point_.size() < 1) fail(ErrorKind::Internal, "minimizer: empty start point");
  if (!(rule.gradient_tolerance > 0) || !std::isfinite(rule.gradient_tolerance))
    fail(ErrorKind::Internal, "minimizer: the gradient tolerance must be positive");
  if (rule.max_evaluations < 1) fail(ErrorKind::Internal, "minimizer: max_evaluations must be >= 1");
}

Status Minimizer::accept(const Evaluation& e) {
  if (status_ != Status::Evaluate) fail(ErrorKind::Internal, "minimizer: evaluation given after the end");
  if (e.gradient.size() != point_.size()) fail(ErrorKind::Internal, "minimizer: gradient of the wrong size");
  if (needs_hessian() && e.hessian.size() == 0) fail(ErrorKind::Internal, "minimizer: the Hessian is missing");
  ++evaluations_;
  const bool ok = finite(e);
  if (ok) {
    last_gradient_norm_ = e.gradient.norm();
    // The one stopping test: on this exact evaluation, with its rounding error.
    if (last_gradient_norm_ + e.gradient_error <= rule_.gradient_tolerance) {
      solution_ = point_;
      solution_gradient_norm_ = last_gradient_norm_;
      status_ = Status::Converged;
      return status_;
    }
  }
  if (evaluations_ >= rule_.max_evaluations) {
    give_up("the gradient norm did not reach the tolerance within " + std::to_string(rule_.max_evaluations) +
            " evaluations");
    return status_;
  }
  step(e);
  return status_;
}

void Minimizer::give_up(std::string reason) {
  status_ = Status::Failed;
  failure_ = std::move(reason);
}

const Eigen::VectorXd& Minimizer::solution() const {
  if (status_ != Status::Converged) fail(ErrorKind::Internal, "minimizer: no solution (not converged)");
  return solution_;
}

double Minimizer::solution_gradient_norm() const {
  if (status_ != Status::Converged) fail(ErrorKind::Internal, "minimizer: no solution (not converged)");
  return solution_gradient_norm_;
}

}  // namespace dptrain::optim
