#include "core/algorithms/optimum_run.h"

#include "core/engine/model_details.h"
#include "core/error.h"

namespace dptrain {
namespace {

MinimizationSetup setup_of(const optimum::OptimumPlan& p) {
  MinimizationSetup s;
  s.problem = p;
  s.feature_bound = p.feature_bound;
  s.tolerance = p.tolerance;
  s.solver = p.solver;
  s.what = "the optimum";
  s.failure_hint =
      "Pass a larger options.max_evaluations or options.tolerance; with lambda = 0 the minimum may not exist "
      "(then pass lambda > 0, e.g. 1/n).";
  return s;
}

// F(w) = (1/n) sum loss + (lambda/2)||w||^2, the same for every model.
std::vector<optim::RegularizedObjective> objectives_of(const optimum::OptimumPlan& p) {
  return std::vector<optim::RegularizedObjective>(
      static_cast<std::size_t>(p.models),
      optim::RegularizedObjective(p.rows, p.lambda, Eigen::VectorXd(), p.feature_bound));
}

}  // namespace

TrainingPlan Optimum::plan(const TrainingConfig& config) const {
  const optimum::OptimumPlan p = optimum::make_plan(config);
  TrainingPlan t;
  t.privacy = p.describe();
  t.warnings = p.warnings;
  return t;
}

std::unique_ptr<Run> Optimum::start(const TrainingConfig& config) const {
  return std::make_unique<OptimumRun>(config, optimum::make_plan(config));
}

OptimumRun::OptimumRun(TrainingConfig config, optimum::OptimumPlan plan)
    : MinimizationRun(setup_of(plan), objectives_of(plan)), config_(std::move(config)), plan_(std::move(plan)) {}

Model OptimumRun::release(double seconds) {
  if (released_) fail(ErrorKind::Internal, "release() called twice");
  Model m = solution_model(config_, "optimum", plan_.lambda, plan_.describe(), seconds);
  released_ = true;
  if (!plan_.warnings.empty()) m.details["warnings"] = plan_.warnings;
  return m;
}

}  // namespace dptrain
