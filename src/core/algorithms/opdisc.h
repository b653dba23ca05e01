// algorithm => 'opdisc': objective perturbation over a discrete grid for the
// 0/1 loss of a linear threshold classifier (Neel, Roth, Vietri & Wu, ICML
// 2020, Algorithm 1; docs/opdisc.md). The run:
//   1. plans from public inputs (grid, G, D, sigma: opdisc_plan.h) and draws
//      eta ~ N(0, sigma^2 I_{d+1}) from its random source -- before any data
//      is read;
//   2. asks for ONE pass, GroupedRows: the table grouped by binarized
//      feature vector with the label counts of each (opdisc_groups.h) --
//      noiseless, kept inside the run, never reported;
//   3. solves argmin_k errors(k) - <eta, pi(k)> exactly with CBC
//      (opdisc_mip.h), interruptible through the driver's interrupt check;
//      a time-out or any non-optimal status releases nothing;
//   4. releases w = tau k.
#pragma once

#include "core/algorithms/algorithm.h"
#include "core/algorithms/opdisc_groups.h"
#include "core/algorithms/opdisc_plan.h"
#include "core/engine/run.h"

namespace dptrain {

class Opdisc : public Algorithm {
 public:
  std::string name() const override { return "opdisc"; }
  // OPDisc refuses an intercept (docs/intercept.md).
  bool default_intercept() const override { return false; }
  // Its one pass, GroupedRows, counts the rows of each binarized feature
  // vector and label: the counts do not depend on the order of the rows.
  bool order_free() const override { return true; }
  TrainingPlan plan(const TrainingConfig& config) const override;
  std::unique_ptr<Run> start(const TrainingConfig& config) const override;
  void check_arguments(const TrainingConfig& config) const override { opdisc::check_arguments(config); }
};

class OpdiscRun : public Run {
 public:
  explicit OpdiscRun(TrainingConfig config);
  // With an explicit plan (make_plan's, or a test's deliberately broken one).
  OpdiscRun(TrainingConfig config, opdisc::Plan plan);

  std::optional<Pass> next() override;
  void accept(const double* result, std::size_t len) override;
  Model release(double seconds) override;
  const std::vector<std::string>& warnings() const override { return plan_.warnings; }
  long progress_done() const override { return (grouped_ ? 1 : 0) + (solved_ ? 1 : 0); }
  long progress_total() const override { return 2; }

  const opdisc::Plan& opdisc_plan() const { return opdisc_; }

 private:
  TrainingConfig config_;
  opdisc::Plan opdisc_;
  TrainingPlan plan_;
  std::vector<double> eta_;       // the objective noise (secret)
  std::vector<int> k_;            // the argmin, grid units
  bool asked_ = false, grouped_ = false, solved_ = false, released_ = false;
};

}  // namespace dptrain
