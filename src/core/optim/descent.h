// What Newton and L-BFGS share: a current point with its evaluation, and a
// Backtracking search (line_search.h) along a direction the subclass
// chooses. The subclass says where to search from the current point, what
// to remember when a step is accepted, and whether it can restart when the
// search is stuck.
#pragma once

#include "core/optim/line_search.h"
#include "core/optim/minimizer.h"

namespace dptrain::optim {

class DescentMinimizer : public Minimizer {
 public:
  using Minimizer::Minimizer;
  int drowned_accepts() const override { return search_.drowned_accepts(); }

 protected:
  void step(const Evaluation& e) final;

  // Choose a direction from x() and call search(direction, initial step).
  virtual void search_from_current() = 0;
  // Called when the step to x_new is accepted, before it becomes x().
  virtual void accepted(const Eigen::VectorXd& x_new, const Evaluation& at_new) {}
  // The search is stuck: start another one (true) or give up (false).
  virtual bool restart_when_stuck() { return false; }

  void search(Eigen::VectorXd direction, double initial_step);
  const Eigen::VectorXd& x() const { return x_; }
  const Evaluation& at_x() const { return at_x_; }

 private:
  bool have_current_ = false;
  Eigen::VectorXd x_;
  Evaluation at_x_;
  Backtracking search_;
};

}  // namespace dptrain::optim
