// algorithm => 'optimum': the exact minimizer of the regularized training
// objective, NOT private. The baseline the papers' "non-private" column
// means (a solver run to convergence, not a few SGD epochs):
//   F(w) = (1/n) sum_i l(y_i <w, x_i>) + (lambda/2) ||w||^2
// minimized by the same reverse-communication optimizer as AMP (Newton up
// to 300 features, L-BFGS above; options.optimizer to force one) until
// ||grad F|| <= options.tolerance (default 1e-10) on an exact evaluation.
// Rows are clipped to ||x|| <= 1 as in every algorithm. With lambda = 0 the
// minimum exists only if the classes are not linearly separable; the run
// then fails rather than return a point that is not the minimum.
// scikit-learn's LogisticRegression(C) is lambda = 1/(C n) (plus an
// intercept, which dptrain's models do not have).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/algorithms/optimizer_arguments.h"
#include "core/loss/loss.h"
#include "core/optim/solver_settings.h"
#include "core/training/config.h"

namespace dptrain::optimum {

struct OptimumPlan : GlmProblem {
  static constexpr double kDefaultTolerance = 1e-10;

  double lambda = 0;
  double feature_bound = 1;  // rows clipped to this norm
  double tolerance = kDefaultTolerance;
  optim::SolverSettings solver;
  std::vector<std::string> warnings;

  // plan.privacy ({"private": false}) and the hyperparameters of the metadata.
  nlohmann::json describe() const;
};

// The checks of make_plan that need no fact of the data.
void check_arguments(const TrainingConfig& config);

// Throws Error(InvalidParameter): epsilon/delta given, SGD-only arguments,
// unknown options, a tolerance that is not a positive number.
OptimumPlan make_plan(const TrainingConfig& config);

}  // namespace dptrain::optimum
