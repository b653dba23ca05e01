// algorithm => 'amp' as a run of the engine: Approximate Minima Perturbation
// (Iyengar et al., IEEE S&P 2019, Algorithm 1; docs/amp.md). The constants
// are planned in amp_plan.h from public inputs; this file is the order of
// operations:
//   1. start(): plan, then draw b1 ~ N(0, sigma1^2 I) per model (step 3)
//      before any pass is asked for;
//   2. minimize L_priv (step 4) by gradient passes over the table until
//      ||grad L_priv|| <= gamma on an exact evaluation (step 5); if the
//      evaluation budget runs out, the run fails and nothing is released
//      (b1 is never redrawn, gamma never loosened);
//   3. release(): add b2 ~ N(0, sigma2^2 I) per model (steps 6-7).
// One-vs-all: K problems in the same passes, each with (epsilon/K, delta/K).
#pragma once

#include "core/algorithms/algorithm.h"
#include "core/algorithms/amp_plan.h"
#include "core/algorithms/minimization_run.h"

namespace dptrain {

class Amp : public Algorithm {
 public:
  std::string name() const override { return "amp"; }
  // No intercept unless asked for: the bias coordinate raises the row bound
  // to sqrt(2) R, which costs a full-gradient method more than it gains at
  // small epsilon (docs/intercept.md, measured).
  bool default_intercept() const override { return false; }
  bool reads_sums_only() const override { return true; }  // gradient/loss passes only
  TrainingPlan plan(const TrainingConfig& config) const override;
  std::unique_ptr<Run> start(const TrainingConfig& config) const override;
  void check_arguments(const TrainingConfig& config) const override { amp::check_arguments(config); }

 protected:
  // The plan a run uses; the privacy audit's broken variants override it.
  virtual amp::AmpPlan make_amp_plan(const TrainingConfig& config) const { return amp::make_plan(config); }
};

class AmpRun : public MinimizationRun {
 public:
  AmpRun(TrainingConfig config, amp::AmpPlan plan);

  Model release(double seconds) override;
  const std::vector<std::string>& warnings() const override { return plan_.warnings; }

  const amp::AmpPlan& plan() const { return plan_; }

 private:
  AmpRun(TrainingConfig config, amp::AmpPlan plan, std::unique_ptr<privacy::RandomSource> rng);

  TrainingConfig config_;
  amp::AmpPlan plan_;
  std::unique_ptr<privacy::RandomSource> rng_;  // drew b1; draws b2 at release
  bool released_ = false;
};

}  // namespace dptrain
