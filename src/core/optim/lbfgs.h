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

#include "core/optim/line_search.h"
#include "core/optim/minimizer.h"

namespace dptrain::optim {

class Lbfgs : public Minimizer {
 public:
  Lbfgs(Eigen::VectorXd start, StopRule rule, int memory = 10);
  bool needs_hessian() const override { return false; }
  int drowned_accepts() const override { return search_.drowned_accepts(); }
  const char* method() const override { return "lbfgs"; }

 protected:
  void step(const Evaluation& e) override;

 private:
  struct Pair {
    Eigen::VectorXd s, y;
    double rho;  // 1 / s'y
  };
  void remember(const Eigen::VectorXd& x_new, const Evaluation& at_new);
  Eigen::VectorXd direction() const;
  void search_from_current();

  int memory_;
  std::deque<Pair> pairs_;
  bool have_current_ = false;
  bool steepest_ = false;  // current search runs along -g
  Eigen::VectorXd x_;
  Evaluation at_x_;
  Backtracking search_;
};

}  // namespace dptrain::optim
