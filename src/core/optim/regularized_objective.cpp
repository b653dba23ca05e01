#include "core/optim/regularized_objective.h"

#include <cmath>
#include <limits>

#include "core/engine/table_changed.h"
#include "core/error.h"

namespace dptrain::optim {

RegularizedObjective::RegularizedObjective(std::int64_t rows, double l2_coefficient, Eigen::VectorXd linear,
                                           double row_gradient_bound)
    : rows_(rows), mu_(l2_coefficient), linear_(std::move(linear)), row_gradient_bound_(row_gradient_bound) {
  if (rows < 1) fail(ErrorKind::Internal, "objective over an empty table");
  if (!(l2_coefficient >= 0) || !std::isfinite(l2_coefficient)) fail(ErrorKind::Internal, "bad L2 coefficient");
  if (!(row_gradient_bound > 0) || !std::isfinite(row_gradient_bound))
    fail(ErrorKind::Internal, "bad per-row gradient bound");
}

Evaluation RegularizedObjective::evaluate(const Eigen::VectorXd& theta, const DataSums& s) const {
  const Eigen::Index d = theta.size();
  if (s.rows != rows_)
    refuse_changed_table("a pass of the objective");
  if (s.gradient_sum.size() != d || (linear_.size() != 0 && linear_.size() != d))
    fail(ErrorKind::Internal, "objective: dimension mismatch");
  const double n = static_cast<double>(rows_);
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const double theta_norm = theta.norm();
  const double linear_norm = linear_.size() ? linear_.norm() : 0.0;
  const double linear_term = linear_.size() ? linear_.dot(theta) : 0.0;

  Evaluation e;
  const double mean_loss = s.loss_sum / n;
  const double quadratic = 0.5 * mu_ * theta.squaredNorm();
  e.value = mean_loss + quadratic + linear_term;
  e.gradient = s.gradient_sum / n + mu_ * theta;
  if (linear_.size()) e.gradient += linear_;
  if (s.hessian_sum.size()) {
    if (s.hessian_sum.rows() != d || s.hessian_sum.cols() != d) fail(ErrorKind::Internal, "objective: bad Hessian");
    e.hessian = s.hessian_sum / n;
    e.hessian.diagonal().array() += mu_;
  }
  const double L = row_gradient_bound_;
  e.gradient_error = 8 * u * (s.gradient_sum.norm() / n + mu_ * theta_norm + linear_norm + L) + 2 * n * u * u * L;
  e.value_error = 16 * u * (std::abs(mean_loss) + quadratic + std::abs(linear_term) + 1 + L * theta_norm);
  return e;
}

}  // namespace dptrain::optim
