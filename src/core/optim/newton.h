// Damped Newton's method in reverse communication: every evaluation carries
// the exact Hessian (d x d), the direction solves H p = -g (Cholesky), and
// Backtracking (line_search.h) damps the step. For the strongly convex GLM
// objectives of AMP and the optimum, H >= mu I, and the step converges
// quadratically near the minimum (for Huber, whose Hessian jumps, it is the
// semismooth Newton step; the line search keeps it globally convergent).
#pragma once

#include "core/optim/descent.h"

namespace dptrain::optim {

class Newton : public DescentMinimizer {
 public:
  Newton(Eigen::VectorXd start, StopRule rule) : DescentMinimizer(std::move(start), rule) {}
  bool needs_hessian() const override { return true; }
  const char* method() const override { return "newton"; }

 protected:
  void search_from_current() override;
};

}  // namespace dptrain::optim
