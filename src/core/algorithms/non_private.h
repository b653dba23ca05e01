// algorithm => 'none': ordinary permutation SGD (Bismarck), no privacy.
// The baseline every private algorithm is compared with.
#pragma once

#include "core/algorithms/algorithm.h"

namespace dptrain {

class NonPrivateSgd : public EpochAlgorithm {
 public:
  // Default constant step size (rows have ||x|| <= 1; see non_private.cpp).
  static constexpr double kDefaultLearningRate = 1.0;

  std::string name() const override { return "none"; }
  bool trains_on_shards() const override { return true; }  // per-shard PSGD, docs/distributed.md §2
  // epsilon or delta: refused before any data is read (the plan repeats it).
  void check_arguments(const TrainingConfig& config) const override;
  // Its schedule for its lambda: before dp_train reads any row.
  void check_run_arguments(const TrainingConfig& config) const override;
  TrainingPlan plan(const TrainingConfig& config) const override;
  void release(const TrainingConfig&, const TrainingPlan&, WeightMatrix&,
               privacy::RandomSource&) const override {}
};

}  // namespace dptrain
