#include "core/optim/lbfgs.h"

#include <algorithm>
#include <vector>

#include "core/error.h"

namespace dptrain::optim {

Lbfgs::Lbfgs(Eigen::VectorXd start, StopRule rule, int memory)
    : DescentMinimizer(std::move(start), rule), memory_(memory) {
  if (memory < 1) fail(ErrorKind::Internal, "L-BFGS memory must be >= 1");
}

void Lbfgs::accepted(const Eigen::VectorXd& x_new, const Evaluation& at_new) {
  Pair p{x_new - x(), at_new.gradient - at_x().gradient, 0};
  const double sy = p.s.dot(p.y);
  if (!(sy > 1e-12 * p.s.norm() * p.y.norm())) return;
  p.rho = 1 / sy;
  pairs_.push_back(std::move(p));
  if (static_cast<int>(pairs_.size()) > memory_) pairs_.pop_front();
}

bool Lbfgs::restart_when_stuck() {
  if (steepest_) return false;
  pairs_.clear();
  search_from_current();
  return true;
}

Eigen::VectorXd Lbfgs::direction() const {
  // Two-loop recursion: returns -H_k g with H_k the L-BFGS inverse Hessian.
  Eigen::VectorXd q = at_x().gradient;
  std::vector<double> alpha(pairs_.size());
  for (std::size_t i = pairs_.size(); i-- > 0;) {
    alpha[i] = pairs_[i].rho * pairs_[i].s.dot(q);
    q -= alpha[i] * pairs_[i].y;
  }
  const Pair& last = pairs_.back();
  q *= last.s.dot(last.y) / last.y.squaredNorm();
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const double beta = pairs_[i].rho * pairs_[i].y.dot(q);
    q += (alpha[i] - beta) * pairs_[i].s;
  }
  return -q;
}

void Lbfgs::search_from_current() {
  const Eigen::VectorXd& g = at_x().gradient;
  Eigen::VectorXd p;
  steepest_ = pairs_.empty();
  if (!steepest_) {
    p = direction();
    if (!p.allFinite() || !(g.dot(p) < 0)) {
      pairs_.clear();
      steepest_ = true;
    }
  }
  // Along -g the first trial moves by at most 1 (no curvature known yet).
  if (steepest_) p = -g;
  search(std::move(p), steepest_ ? std::min(1.0, 1.0 / g.norm()) : 1.0);
}

}  // namespace dptrain::optim
