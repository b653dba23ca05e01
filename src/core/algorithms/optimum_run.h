// algorithm => 'optimum' as a run of the engine: the non-private minimizer
// of the regularized objective (plan and objective in optimum.h), by the same
// gradient passes and optimizer as AMP, without any noise. Released as is;
// a run that does not reach options.tolerance fails (no model).
#pragma once

#include "core/algorithms/algorithm.h"
#include "core/algorithms/minimization_run.h"
#include "core/algorithms/optimum.h"

namespace dptrain {

class Optimum : public Algorithm {
 public:
  std::string name() const override { return "optimum"; }
  TrainingPlan plan(const TrainingConfig& config) const override;
  std::unique_ptr<Run> start(const TrainingConfig& config) const override;
  void check_arguments(const TrainingConfig& config) const override { optimum::check_arguments(config); }
  bool reads_sums_only() const override { return true; }  // gradient/loss passes only
};

class OptimumRun : public MinimizationRun {
 public:
  OptimumRun(TrainingConfig config, optimum::OptimumPlan plan);

  Model release(double seconds) override;
  const std::vector<std::string>& warnings() const override { return plan_.warnings; }

 private:
  TrainingConfig config_;
  optimum::OptimumPlan plan_;
  bool released_ = false;
};

}  // namespace dptrain
