#include "core/optim/in_memory_glm.h"

#include <cmath>

#include "core/error.h"
#include "core/optim/lockstep.h"

namespace dptrain::optim {
namespace {

// Neumaier's compensated sum (Neumaier 1974; Higham §4.3), per component.
struct Compensated {
  explicit Compensated(Eigen::Index n) : sum(Eigen::VectorXd::Zero(n)), carry(Eigen::VectorXd::Zero(n)) {}
  void add(Eigen::Index j, double v) {
    const double s = sum[j], t = s + v;
    carry[j] += std::abs(s) >= std::abs(v) ? (s - t) + v : (v - t) + s;
    sum[j] = t;
  }
  Eigen::VectorXd total() const { return sum + carry; }
  Eigen::VectorXd sum, carry;
};

constexpr Eigen::Index kBlock = 2048;  // rows per block of the Hessian product

}  // namespace

void clip_rows(RowMatrix& x, double bound) {
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const double norm = x.row(i).norm();
    if (norm > bound) x.row(i) *= bound / norm;
  }
}

InMemoryGlm::InMemoryGlm(RowMatrix x, std::vector<int> classes, int models, LossKind loss, double huber_h,
                         double clip_bound)
    : x_(std::move(x)), classes_(std::move(classes)), models_(models), loss_(loss), huber_h_(huber_h) {
  if (static_cast<std::size_t>(x_.rows()) != classes_.size()) fail(ErrorKind::Internal, "one class per row");
  if (models < 1 || models == 2) fail(ErrorKind::Internal, "models: 1 (binary) or K >= 3");
  const int classes_count = models == 1 ? 2 : models;
  for (int c : classes_)
    if (c < 0 || c >= classes_count) fail(ErrorKind::InvalidData, "class index out of range");
  if (clip_bound > 0) clip_rows(x_, clip_bound);
}

DataSums InMemoryGlm::sums(int model, const Eigen::VectorXd& theta, bool hessian) const {
  const Eigen::Index n = x_.rows(), d = x_.cols();
  if (theta.size() != d) fail(ErrorKind::Internal, "theta has the wrong dimension");
  DataSums s;
  s.rows = n;
  Compensated loss(1), gradient(d);
  if (hessian) s.hessian_sum = Eigen::MatrixXd::Zero(d, d);
  Eigen::VectorXd curvature(kBlock);
  for (Eigen::Index begin = 0; begin < n; begin += kBlock) {
    const Eigen::Index len = std::min(kBlock, n - begin);
    const Eigen::VectorXd margins = x_.middleRows(begin, len) * theta;
    for (Eigen::Index r = 0; r < len; ++r) {
      const Eigen::Index i = begin + r;
      const double y = label(i, model), z = y * margins[r];
      loss.add(0, loss_value(loss_, z, huber_h_));
      const double slope = loss_derivative(loss_, z, huber_h_) * y;
      for (Eigen::Index j = 0; j < d; ++j) gradient.add(j, slope * x_(i, j));
      if (hessian) curvature[r] = loss_second_derivative(loss_, z, huber_h_);
    }
    if (hessian) {
      const auto block = x_.middleRows(begin, len);
      s.hessian_sum.noalias() += block.transpose() * (curvature.head(len).asDiagonal() * block);
    }
  }
  s.loss_sum = loss.total()[0];
  s.gradient_sum = gradient.total();
  return s;
}

int run_in_memory(Lockstep& lockstep, const InMemoryGlm& data, const std::vector<RegularizedObjective>& objectives) {
  if (static_cast<int>(objectives.size()) != lockstep.size() || data.models() != lockstep.size())
    fail(ErrorKind::Internal, "run_in_memory: one objective per model");
  while (lockstep.running()) {
    const WeightMatrix points = lockstep.points();
    const bool hessian = lockstep.needs_hessian();
    std::vector<Evaluation> evaluations(static_cast<std::size_t>(lockstep.size()));
    for (int k = 0; k < lockstep.size(); ++k) {
      if (!lockstep.pending(k)) continue;
      const Eigen::VectorXd theta = points.row(k).transpose();
      evaluations[k] = objectives[k].evaluate(theta, data.sums(k, theta, hessian));
    }
    lockstep.accept(evaluations);
  }
  return lockstep.passes();
}

}  // namespace dptrain::optim
