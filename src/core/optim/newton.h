// Damped Newton's method in reverse communication: every evaluation carries
// the exact Hessian (d x d), the direction solves H p = -g (Cholesky), and
// Backtracking (line_search.h) damps the step. For the strongly convex GLM
// objectives of AMP and the optimum, H >= mu I, and the step converges
// quadratically near the minimum (for Huber, whose Hessian jumps, it is the
// semismooth Newton step; the line search keeps it globally convergent).
#pragma once

#include "core/optim/line_search.h"
#include "core/optim/minimizer.h"

namespace dptrain::optim {

class Newton : public Minimizer {
 public:
  Newton(Eigen::VectorXd start, StopRule rule) : Minimizer(std::move(start), rule) {}
  bool needs_hessian() const override { return true; }
  int drowned_accepts() const override { return search_.drowned_accepts(); }
  const char* method() const override { return "newton"; }

 protected:
  void step(const Evaluation& e) override;

 private:
  void next_direction();

  bool have_current_ = false;
  Eigen::VectorXd x_;
  Evaluation at_x_;
  Backtracking search_;
};

}  // namespace dptrain::optim
