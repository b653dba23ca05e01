// The run of an EpochAlgorithm (algorithms/algorithm.h): the Bismarck
// controller of the first engine as a run object. It asks for one epoch
// pass per planned epoch (a permutation epoch of dptrain.sgd_epoch, or
// BST14's sampled batches), a reshuffle before every epoch after the first
// when the plan wants fresh permutations, and, with bolt-on's convergence
// tolerance, the training loss of the noiseless model after every epoch (it
// only decides whether to stop; it is never reported). release() applies
// the algorithm's release step (output perturbation, or nothing for
// white-box algorithms) and records the metadata.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/engine/distributed.h"
#include "core/engine/run.h"
#include "core/privacy/random_source.h"

namespace dptrain {

class EpochRun : public Run {
 public:
  // Plans `config` with `algorithm` (default: the one config names, which
  // must be an EpochAlgorithm).
  explicit EpochRun(TrainingConfig config);
  EpochRun(TrainingConfig config, std::shared_ptr<const EpochAlgorithm> algorithm);

  std::optional<Pass> next() override;
  void accept(const double* result, std::size_t len) override;
  Model release(double seconds) override;
  const std::vector<std::string>& warnings() const override { return plan_.warnings; }
  long progress_done() const override { return epochs_done_; }
  long progress_total() const override { return plan_.epochs; }

  const TrainingConfig& config() const { return config_; }
  const TrainingPlan& plan() const { return plan_; }
  int epochs_done() const { return epochs_done_; }
  bool stopped_early() const { return stopped_; }
  // The initial aggregate state of the next epoch.
  std::vector<double> epoch_input() const;
  // Rows the next epoch's aggregate must see: n for a permutation epoch,
  // ceil(n / b) * b for sampled batches (BST14).
  std::int64_t rows_per_epoch() const;

 private:
  enum class Awaiting { Nothing, Epoch, Reshuffle, TrainingLoss };

  bool needs_epoch() const { return epochs_done_ < plan_.epochs && !stopped_; }
  bool wants_training_loss() const { return plan_.stop_tolerance > 0 && !stopped_ && epochs_done_ > 0; }
  void accept_epoch(const double* state, std::size_t len);
  void accept_training_loss(const double* totals, std::size_t len);
  std::vector<double> current_packed_model() const;

  TrainingConfig config_;
  std::shared_ptr<const EpochAlgorithm> algorithm_;
  TrainingPlan plan_;
  // A distributed source (config_.distributed()): the per-shard PSGD plan,
  // and the run's shuffle key (sgd/shuffle_key.h; epoch e shuffles every
  // shard by the key derived from it and e).
  std::optional<distributed::EpochPlan> sharded_;
  privacy::RandomSource::Key shuffle_key_{};
  // ... and the run's secret count key: epoch e's states carry the key
  // derived from it and e, and the combine folds every shard's row count
  // into a fingerprint the run checks against the planned counts
  // (sgd/shard_counts.h; drawn from the OS CSPRNG, also in a seeded run).
  privacy::RandomSource::Key count_key_{};
  void check_shard_counts(const double* state) const;
  // Updates per epoch: ceil(n / b), or U = max_s ceil(P n_s / b) on shards.
  std::uint64_t updates_per_epoch() const;
  // plan_.epoch plus the run's secret key for white-box noise and batch
  // sampling (never recorded anywhere else).
  epoch_state::EpochConfig epoch_config_;
  privacy::RandomSource release_rng_;
  std::vector<double> weights_;   // K*d, row-major
  std::vector<double> average_;   // running average (if averaging)
  std::uint64_t updates_ = 0;
  std::uint64_t averaged_ = 0;
  int epochs_done_ = 0;
  bool reshuffled_ = false;        // the reshuffle before the next epoch is done
  bool loss_measured_ = false;     // the training loss after the last epoch is known
  double previous_objective_ = -1.0;
  bool stopped_ = false;
  bool released_ = false;
  Awaiting awaiting_ = Awaiting::Nothing;
};

}  // namespace dptrain
