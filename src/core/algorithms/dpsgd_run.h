// The run of a DP-SGD-family algorithm (algorithms/dpsgd.h): the lot state
// (dpsgd/lot_state.h) travels through PoissonLots passes of m lots each
// (lots_per_query), so T lots take ceil(T / m) queries; after lot T the run
// releases theta. The state holds the run's secret key (lots and noise):
// it is only ever the input of the next pass, never reported or stored.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dpsgd/plan.h"
#include "core/engine/run.h"
#include "core/privacy/random_source.h"
#include "core/training/config.h"

namespace dptrain {

// The run's 256-bit key (lots and noise): from the OS, or from config.seed
// (tests only; the model is then marked seeded, not private).
privacy::RandomSource::Key dpsgd_run_key(const TrainingConfig& config);

class DpSgdRun : public Run {
 public:
  // Plans `config` (config.algorithm names the family member); throws before
  // any data is read if the plan is not possible.
  explicit DpSgdRun(TrainingConfig config);
  // With a plan made earlier by plan_dpsgd(dpsgd_request(config)) for this
  // config (the privacy audit runs thousands of runs of one plan).
  DpSgdRun(TrainingConfig config, dpsgd::DpSgdPlan plan);

  std::optional<Pass> next() override;
  void accept(const double* result, std::size_t len) override;
  Model release(double seconds) override;
  const std::vector<std::string>& warnings() const override { return plan_.warnings; }
  long progress_done() const override { return static_cast<long>(done_); }
  long progress_total() const override { return static_cast<long>(dp_.steps); }

  const dpsgd::DpSgdPlan& dpsgd_plan() const { return dp_; }
  std::uint64_t lots_per_query() const { return per_query_; }
  std::uint64_t queries() const { return queries_; }

 private:
  TrainingConfig config_;
  dpsgd::DpSgdPlan dp_;
  TrainingPlan plan_;
  std::uint64_t per_query_;
  std::vector<double> state_;
  std::uint64_t done_ = 0;      // lots done (public: a count fixed by the plan)
  std::uint64_t awaiting_ = 0;  // the last lot of the pass in flight, 0 = none
  std::uint64_t queries_ = 0;
  bool released_ = false;
};

}  // namespace dptrain
