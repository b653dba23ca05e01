// The run of an algorithm that minimizes a regularized GLM objective with a
// reverse-communication optimizer (amp, optimum): every evaluation of the
// objective is one GradientLoss pass over the table (engine/gradient_state.h)
// at the K one-vs-all models' current points, stepped together
// (optim::Lockstep). The run adds the data-independent terms (L2, a linear
// noise term) to the pass's sums (optim::RegularizedObjective) and feeds the
// optimizer; the stopping test is made on that exact evaluation
// (optim::Minimizer::accept), never on the optimizer's own estimates.
//
// Failure (the evaluation budget ran out before every model's gradient norm
// reached the tolerance, or the optimizer could not move) is an error raised
// by next(): the run then has nothing to release, and nothing is retried,
// redrawn or relaxed. The error holds no data-dependent number.
//
// Derived classes decide the objective (AMP: Lambda/n and b1; the optimum:
// lambda and nothing) and what release() adds (AMP: b2).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithms/optimizer_arguments.h"
#include "core/engine/gradient_state.h"
#include "core/engine/run.h"
#include "core/optim/lockstep.h"
#include "core/optim/regularized_objective.h"
#include "core/optim/solver_settings.h"

namespace dptrain {

// What the generic loop needs from a plan (all public).
struct MinimizationSetup {
  GlmProblem problem;
  double feature_bound = 1;     // rows clipped to ||x|| <= this in the pass (AMP's L)
  double tolerance = 0;         // ||grad F|| to reach, certified on an exact evaluation
  optim::SolverSettings solver;
  std::string what;             // "AMP" / "the optimum", for messages
  std::string failure_hint;     // what the user can change when it fails
};

class MinimizationRun : public Run {
 public:
  // One objective per model (K of them).
  MinimizationRun(MinimizationSetup setup, std::vector<optim::RegularizedObjective> objectives);

  std::optional<Pass> next() override;
  void accept(const double* result, std::size_t len) override;
  long progress_done() const override { return lockstep_.passes(); }
  long progress_total() const override { return setup_.solver.max_evaluations; }

  const optim::Lockstep& lockstep() const { return lockstep_; }
  const MinimizationSetup& setup() const { return setup_; }

 protected:
  // K x d, after next() returned nothing (every model converged).
  WeightMatrix solutions() const;
  // The model of solutions(), as both runs release it: the problem's loss and
  // feature bound, and the metadata hyperparameters (loss, lambda,
  // feature_bound, huber_h of a Huber loss, options), data, privacy,
  // optimizer and seconds. release() adds what is its own (AMP: b2).
  Model solution_model(const TrainingConfig& config, const std::string& algorithm, double lambda,
                       const nlohmann::json& privacy, double seconds) const;

 private:
  // The "optimizer" part of the metadata (public settings only).
  nlohmann::json optimizer_json() const;
  gradient_state::Request request(bool hessian) const;

  MinimizationSetup setup_;
  std::vector<optim::RegularizedObjective> objectives_;
  optim::Lockstep lockstep_;
  std::vector<double> sent_;  // the state of the pass in flight (empty: none)
};

}  // namespace dptrain
