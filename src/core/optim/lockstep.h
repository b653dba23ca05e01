// K independent minimizations stepped together, one point per problem per
// pass: the K one-vs-all models of a run share every pass over the data
// (the gradient pass evaluates the K models' points in one scan).
//
//   Lockstep ls(std::move(problems));
//   while (ls.running()) ls.accept(evaluate_all(ls.points(), ls.needs_hessian()));
//   if (ls.converged()) use ls.solutions(); else nothing (ls.failure()).
//
// A problem that has converged keeps its solution as its point (the pass
// may evaluate it again; that evaluation is ignored). The first failure
// ends the whole run: a one-vs-all model with a missing member is released
// by nobody.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/optim/minimizer.h"
#include "core/optim/solver_settings.h"

namespace dptrain::optim {

class Lockstep {
 public:
  explicit Lockstep(std::vector<std::unique_ptr<Minimizer>> problems);

  int size() const { return static_cast<int>(problems_.size()); }
  bool running() const;    // some problem still evaluates and none failed
  bool converged() const;  // every problem converged
  bool failed() const;     // some problem failed
  // Problem k waits for an evaluation at row k of points().
  bool pending(int k) const { return problems_[k]->status() == Status::Evaluate; }
  // Some pending problem wants the Hessian at its point.
  bool needs_hessian() const;

  // K x d: the next point of each pending problem, the solution of a converged one.
  WeightMatrix points() const;
  // One evaluation per problem, at row k of points(); entries of problems
  // that are not pending are ignored (may be empty).
  void accept(const std::vector<Evaluation>& evaluations);
  // K x d solutions (converged() only).
  WeightMatrix solutions() const;

  int passes() const { return passes_; }
  const Minimizer& problem(int k) const { return *problems_[k]; }
  // "model k: <reason>" of the first failed problem.
  std::string failure() const;

 private:
  std::vector<std::unique_ptr<Minimizer>> problems_;
  int passes_ = 0;
};

// K problems of dimension d, each started at zero, all of `settings.method`.
std::vector<std::unique_ptr<Minimizer>> make_minimizers(const SolverSettings& settings, int models, int dim,
                                                        double gradient_tolerance);

}  // namespace dptrain::optim
