// Limited-memory BFGS in reverse communication (Nocedal & Wright, Numerical
// Optimization, 2nd ed., Algorithm 7.4 two-loop recursion, initial scaling
// s'y / y'y), gradient only, with Backtracking (line_search.h). For a
// strongly convex F every step has s'y >= mu ||s||^2 > 0, so no Wolfe
// condition is needed to keep the update positive definite; pairs whose
// curvature rounding has spoiled (s'y <= 1e-12 ||s|| ||y||) are skipped.
// When the line search is stuck, the memory is dropped and the search
// restarts along -g (a direction along which ||grad F|| decreases for small
// steps, so rule (b) of the line search can always make progress); stuck
// along -g as well, it gives up.
#pragma once

#include <deque>

#include "core/optim/descent.h"

namespace dptrain::optim {

class Lbfgs : public DescentMinimizer {
 public:
  Lbfgs(Eigen::VectorXd start, StopRule rule, int memory = 10);
  bool needs_hessian() const override { return false; }
  const char* method() const override { return "lbfgs"; }

 protected:
  void search_from_current() override;
  void accepted(const Eigen::VectorXd& x_new, const Evaluation& at_new) override;
  bool restart_when_stuck() override;

 private:
  struct Pair {
    Eigen::VectorXd s, y;
    double rho;  // 1 / s'y
  };
  Eigen::VectorXd direction() const;

  int memory_;
  std::deque<Pair> pairs_;
  bool steepest_ = false;  // the current search runs along -g
};

}  // namespace dptrain::optim
