#include "core/algorithms/optimum.h"

#include <cmath>

#include "core/algorithms/optimizer_arguments.h"
#include "core/algorithms/whitebox.h"
#include "core/error.h"

namespace dptrain::optimum {
namespace {

[[noreturn]] void bad(const std::string& message, const std::string& hint = {}) {
  fail(ErrorKind::InvalidParameter, message, {}, hint);
}

}  // namespace

void check_arguments(const TrainingConfig& c) {
  validate_optimizer_arguments(c, "optimum");
  if (c.epsilon || c.delta)
    bad("algorithm \"optimum\" is not private: epsilon and delta must be NULL",
        "Choose a private algorithm (e.g. algorithm => 'amp') or drop epsilon/delta.");
  whitebox::check_options(c, "optimum", {"tolerance", "optimizer", "max_evaluations"});
}

OptimumPlan make_plan(const TrainingConfig& c) {
  check_arguments(c);
  validate_data_facts(c);

  OptimumPlan p;
  static_cast<GlmProblem&>(p) = glm_problem(c);
  p.lambda = c.lambda;
  p.feature_bound = c.feature_bound;
  if (c.options.contains("tolerance")) {
    const auto& t = c.options["tolerance"];
    if (!t.is_number() || !(t.get<double>() > 0) || !std::isfinite(t.get<double>()))
      bad("options.tolerance must be a positive number", "The default is 1e-10 (a bound on ||grad F||).");
    p.tolerance = t.get<double>();
  }
  p.solver = optim::solver_settings(c.options, c.dim);
  if (p.lambda == 0)
    p.warnings.push_back("lambda = 0: the minimum exists only if no direction separates the classes (e.g. a "
                         "category seen in one class only), otherwise the run fails; lambda = 1/n is "
                         "scikit-learn's LogisticRegression(C = 1)");
  return p;
}

nlohmann::json OptimumPlan::describe() const {
  return {{"private", false},
          {"objective", "(1/n) sum loss + (lambda/2) ||w||^2, rows clipped to ||x|| <= feature_bound"},
          {"lambda", lambda},
          {"feature_bound", feature_bound},
          {"tolerance", tolerance},
          {"solver", solver.to_json()}};
}

}  // namespace dptrain::optimum
