// A minimizer in reverse communication: it never calls the objective. The
// caller asks point() (and needs_hessian()), evaluates F there (one pass over
// the data), hands the result to accept(), and repeats while status() is
// Evaluate:
//
//   while (m.status() == Status::Evaluate) m.accept(evaluate(m.point(), m.needs_hessian()));
//
// Stopping is decided on the evaluations it is given, never on the
// optimizer's own estimates: Converged means that the point solution() was
// evaluated and ||grad F|| + gradient_error <= the tolerance there. Failed
// means the evaluation budget ran out (or no progress was possible); then
// there is no solution, and a private algorithm releases nothing. Neither
// the tolerance nor anything else is relaxed on failure.
#pragma once

#include <Eigen/Core>
#include <string>

#include "core/optim/evaluation.h"

namespace dptrain::optim {

enum class Status { Evaluate, Converged, Failed };

struct StopRule {
  double gradient_tolerance = 0;  // > 0
  int max_evaluations = 100;      // >= 1, every evaluation counted
};

class Minimizer {
 public:
  Minimizer(Eigen::VectorXd start, StopRule rule);
  virtual ~Minimizer() = default;
  Minimizer(const Minimizer&) = delete;
  Minimizer& operator=(const Minimizer&) = delete;

  Status status() const { return status_; }
  // Where F must be evaluated next (status() == Evaluate).
  const Eigen::VectorXd& point() const { return point_; }
  virtual bool needs_hessian() const = 0;
  virtual const char* method() const = 0;

  // F at point(); returns the new status.
  Status accept(const Evaluation& e);

  // Converged only (throws otherwise).
  const Eigen::VectorXd& solution() const;
  double solution_gradient_norm() const;

  int evaluations() const { return evaluations_; }
  int iterations() const { return iterations_; }  // accepted steps
  double last_gradient_norm() const { return last_gradient_norm_; }
  // Steps accepted on a gradient-norm decrease because F's differences were
  // rounding noise (line_search.h rule (b)).
  virtual int drowned_accepts() const = 0;
  // Failed only. Never holds a data-dependent number (a failed private run
  // may show it to callers who may not read the table).
  const std::string& failure() const { return failure_; }
  double tolerance() const { return rule_.gradient_tolerance; }

 protected:
  // Called with every evaluation that did not end the run (it may have
  // non-finite entries: a trial point that overflowed). Must call propose()
  // or give_up().
  virtual void step(const Evaluation& e) = 0;
  void propose(Eigen::VectorXd next) { point_ = std::move(next); }
  void give_up(std::string reason);
  void count_iteration() { ++iterations_; }

 private:
  StopRule rule_;
  Status status_ = Status::Evaluate;
  Eigen::VectorXd point_;
  Eigen::VectorXd solution_;
  double solution_gradient_norm_ = 0;
  double last_gradient_norm_ = 0;
  int evaluations_ = 0;
  int iterations_ = 0;
  std::string failure_;
};

// True if value and gradient (and the Hessian if present) are all finite.
bool finite(const Evaluation& e);

}  // namespace dptrain::optim
