#include "core/engine/epoch_run.h"

#include <Eigen/Core>
#include <cmath>
#include <string>

#include "core/engine/model_details.h"
#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/packed_model.h"
#include "core/sgd/shuffle_key.h"

namespace dptrain {
namespace {

// Stream of a test seed that keys the white-box noise (distinct from the
// stream 0 the release step draws from).
constexpr std::uint64_t kWhiteBoxKeyStream = 0x77686974'65626f78;  // "whitebox"

privacy::RandomSource release_source(const TrainingConfig& c) {
  return c.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*c.seed)) : privacy::RandomSource::secure();
}

std::shared_ptr<const EpochAlgorithm> epoch_algorithm(const std::string& name) {
  std::shared_ptr<const Algorithm> a = make_algorithm(name);
  auto epochs = std::dynamic_pointer_cast<const EpochAlgorithm>(a);
  if (!epochs) fail(ErrorKind::Internal, "algorithm \"" + name + "\" does not run SGD epochs");
  return epochs;
}

}  // namespace

std::unique_ptr<Run> EpochAlgorithm::start(const TrainingConfig& config) const {
  return std::make_unique<EpochRun>(config, std::static_pointer_cast<const EpochAlgorithm>(shared_from_this()));
}

EpochRun::EpochRun(TrainingConfig config) : EpochRun(config, epoch_algorithm(config.algorithm)) {}

EpochRun::EpochRun(TrainingConfig config, std::shared_ptr<const EpochAlgorithm> algorithm)
    : config_(std::move(config)),
      algorithm_(std::move(algorithm)),
      plan_(algorithm_ ? algorithm_->plan(config_) : TrainingPlan{}),
      epoch_config_(plan_.epoch),
      release_rng_(release_source(config_)) {
  if (!algorithm_) fail(ErrorKind::Internal, "EpochRun without an algorithm");
  if (plan_.epoch.noise != privacy::BatchNoiseKind::None || plan_.epoch.sampled_batches) {
    // One fresh 256-bit key per run; every batch then reads its own stream
    // (nonce = update index), every BST14 epoch its own sampling stream.
    privacy::RandomSource rng =
        config_.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*config_.seed), kWhiteBoxKeyStream)
                     : privacy::RandomSource::secure();
    epoch_config_.noise_key = privacy::key_to_words(privacy::draw_key(rng));
    epoch_config_.noise_seeded = config_.seed.has_value();
  }
  if (config_.distributed()) {
    // Per-shard PSGD (docs/distributed.md): refused here, before any data
    // is read, unless the per-shard bound is covered by the plan's noise;
    // when it is smaller, the algorithm's noise is re-calibrated to it
    // (section 9.2), so release() and the metadata use the same plan_.
    sharded_ = distributed::plan_epochs(config_, plan_);
    distributed::calibrate_noise(config_, *algorithm_, plan_, *sharded_);
    epoch_config_.schedule = sharded_->schedule;
    shuffle_key_ = sgd::run_shuffle_key(config_.seed ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*config_.seed))
                                                     : std::nullopt);
    count_key_ = sgd::run_count_key();
  }
  const std::size_t n = static_cast<std::size_t>(plan_.epoch.dim) * plan_.epoch.models;
  weights_.assign(n, 0.0);
  if (plan_.epoch.averaging) average_.assign(n, 0.0);
  // Builds (and validates) one state now, so a bad plan fails before any data is read.
  epoch_input();
}

std::vector<double> EpochRun::epoch_input() const {
  epoch_state::EpochConfig c = epoch_config_;
  if (sharded_) {
    c.count_shards = true;
    c.count_key = sgd::epoch_count_key(count_key_, static_cast<std::uint64_t>(epochs_done_));
  }
  return epoch_state::make_state(c, weights_.data(), updates_, plan_.epoch.averaging ? average_.data() : nullptr,
                                 averaged_);
}

std::uint64_t EpochRun::updates_per_epoch() const {
  return static_cast<std::uint64_t>(sharded_ ? sharded_->updates_per_epoch : config_.updates_per_epoch());
}

std::int64_t EpochRun::rows_per_epoch() const {
  if (sharded_) return config_.rows * sharded_->local_passes;  // every shard streams its rows P times
  return plan_.epoch.sampled_batches ? config_.updates_per_epoch() * config_.batch_size : config_.rows;
}

std::optional<Pass> EpochRun::next() {
  if (awaiting_ != Awaiting::Nothing) fail(ErrorKind::Internal, "next() before the last pass was accepted");
  Pass p;
  p.rows = config_.rows;
  if (wants_training_loss() && !loss_measured_) {
    p.kind = PassKind::Evaluate;
    p.input = current_packed_model();
    awaiting_ = Awaiting::TrainingLoss;
    return p;
  }
  if (!needs_epoch()) return std::nullopt;
  // On shards every epoch has a fresh keyed order anyway: no reshuffle pass.
  if (epochs_done_ > 0 && plan_.reshuffle && !reshuffled_ && !sharded_) {
    p.kind = PassKind::Reshuffle;
    awaiting_ = Awaiting::Reshuffle;
    return p;
  }
  p.kind = plan_.epoch.sampled_batches ? PassKind::SampledEpoch : PassKind::SgdEpoch;
  p.input = epoch_input();
  if (sharded_) {
    const sgd::EpochShuffleWords w =
        sgd::epoch_key_to_words(sgd::epoch_shuffle_key(shuffle_key_, static_cast<std::uint64_t>(epochs_done_)));
    p.shuffle_key.assign(w.begin(), w.end());
    p.local_passes = sharded_->local_passes;
  }
  awaiting_ = Awaiting::Epoch;
  return p;
}

void EpochRun::accept(const double* result, std::size_t len) {
  const Awaiting what = awaiting_;
  awaiting_ = Awaiting::Nothing;
  switch (what) {
    case Awaiting::Epoch: return accept_epoch(result, len);
    case Awaiting::TrainingLoss: return accept_training_loss(result, len);
    case Awaiting::Reshuffle: reshuffled_ = true; return;
    case Awaiting::Nothing: break;
  }
  fail(ErrorKind::Internal, "accept() without a pass");
}

void EpochRun::accept_epoch(const double* s, std::size_t len) {
  epoch_state::validate(s, len);
  const std::vector<double> expected = epoch_input();
  if (len != expected.size() || !epoch_state::same_run(s, expected.data()))
    fail(ErrorKind::InvalidState, "the epoch returned a state of a different training configuration");
  if (epoch_state::rows(s) != static_cast<std::uint64_t>(rows_per_epoch()))
    throw Error(ErrorKind::Internal,
                plan_.epoch.sampled_batches ? "the epoch did not see every sampled batch in full"
                                            : "the epoch did not see every row exactly once",
                "It saw " + std::to_string(epoch_state::rows(s)) + " rows, expected " +
                    std::to_string(rows_per_epoch()) + " (the table has " + std::to_string(config_.rows) + ").",
                "Was the table modified during training?",
                // On shards the table is read in place: a concurrent write, not a bug.
                sharded_ ? sqlstate::kTableChanged : "");
  if (sharded_) check_shard_counts(s);
  // Every update of the epoch drew its noise from the stream of its own
  // update index; the next epoch continues from the public count.
  // (On shards: the combine keeps the largest counter, max_s ceil(P n_s / b).)
  if (epoch_state::updates(s) != updates_ + updates_per_epoch())
    fail(ErrorKind::Internal, "the epoch made an unexpected number of updates");
  const double* w = epoch_state::weights(s);
  std::copy(w, w + weights_.size(), weights_.begin());
  if (plan_.epoch.averaging) {
    const double* a = epoch_state::average(s);
    std::copy(a, a + average_.size(), average_.begin());
    averaged_ = epoch_state::averaged(s);
  }
  // The public update count of an epoch: ceil(n / b), or U on shards.
  updates_ += updates_per_epoch();
  ++epochs_done_;
  reshuffled_ = false;
  loss_measured_ = false;
  report("epoch " + std::to_string(epochs_done_) + " of " + std::to_string(plan_.epochs) + " done");
}

// The multiset of per-shard counts the epoch saw must be the one the run
// planned from (the counts before the charge): the sensitivity, the shard
// step and the noise are functions of it (docs/distributed.md sections 2 and
// 9.2). Checked after the totals, so it fires only when they agree: it says
// no more than that check, that the table changed, and names no count.
void EpochRun::check_shard_counts(const double* s) const {
  const sgd::CountKey key = sgd::epoch_count_key(count_key_, static_cast<std::uint64_t>(epochs_done_));
  std::vector<std::uint64_t> planned;
  for (std::int64_t n : config_.shard_rows)
    planned.push_back(static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(sharded_->local_passes));
  if (epoch_state::shard_fingerprint(s) != sgd::multiset_fingerprint(key, planned))
    throw Error(ErrorKind::Internal, "the shards of the table changed during training",
                "The epoch read other per-shard row counts than those counted before the run, with the same total.",
                "Was the table modified during training? Train on a table no one writes while the run lasts, "
                "and try again.",
                sqlstate::kTableChanged);
}

std::vector<double> EpochRun::current_packed_model() const {
  Model m;
  m.loss = plan_.epoch.loss;
  m.huber_h = plan_.epoch.huber_h;
  m.feature_bound = plan_.epoch.feature_bound;
  const std::vector<double>& w = plan_.epoch.averaging ? average_ : weights_;
  m.weights = Eigen::Map<const WeightMatrix>(w.data(), plan_.epoch.models, plan_.epoch.dim);
  return packed_model::pack(m);
}

// Bolt-on §4.3's convergence tolerance: the loss of the noiseless model
// only decides whether to stop; it is never reported.
void EpochRun::accept_training_loss(const double* totals, std::size_t len) {
  if (totals == nullptr || len < evaluation::kTotalsHeader || !(totals[0] >= 1) || !std::isfinite(totals[2]) || totals[2] < 0)
    fail(ErrorKind::Internal, "malformed training-loss result");
  loss_measured_ = true;
  const double mean_loss = totals[2] / totals[0];
  // The objective SGD minimizes: mean loss + (lambda/2) ||w||^2 (per model).
  const std::vector<double>& w = plan_.epoch.averaging ? average_ : weights_;
  const double squared = Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size())).squaredNorm();
  const double objective = mean_loss + 0.5 * plan_.epoch.lambda * squared / plan_.epoch.models;
  // Bismarck's rule: stop when (previous - current) / previous < tolerance.
  if (previous_objective_ > 0 && (previous_objective_ - objective) / previous_objective_ < plan_.stop_tolerance) {
    stopped_ = true;
    report("stopped after epoch " + std::to_string(epochs_done_) + " of " + std::to_string(plan_.epochs) +
               ": the training objective improved by less than the tolerance",
           true);
  }
  previous_objective_ = objective;
}

Model EpochRun::release(double seconds) {
  if (released_) fail(ErrorKind::Internal, "release() called twice");
  if (epochs_done_ != plan_.epochs && !stopped_) fail(ErrorKind::Internal, "release() before all planned epochs ran");
  released_ = true;
  const int K = plan_.epoch.models, d = plan_.epoch.dim;
  const std::vector<double>& source = plan_.epoch.averaging ? average_ : weights_;
  WeightMatrix w = Eigen::Map<const WeightMatrix>(source.data(), K, d);
  algorithm_->release(config_, plan_, w, release_rng_);

  Model m;
  m.name = config_.name;
  m.algorithm = algorithm_->name();
  m.loss = plan_.epoch.loss;
  m.huber_h = plan_.epoch.huber_h;
  m.feature_bound = plan_.epoch.feature_bound;
  m.classes = config_.classes;
  m.weights = w;
  m.epsilon = plan_.epsilon;
  m.delta = plan_.delta;
  m.seeded = config_.seed.has_value();
  m.details = {
      {"hyperparameters", describe(config_, plan_)},
      {"data", data_facts(config_)},
      {"privacy", plan_.privacy},
      {"randomness", randomness_note(m.seeded)},
      {"seconds", seconds},
  };
  if (plan_.stop_tolerance > 0)
    m.details["stopping"] = {{"tolerance", plan_.stop_tolerance},
                             {"max_epochs", plan_.epochs},
                             {"epochs_run", epochs_done_},
                             {"note", "data-dependent number of epochs: the privacy argument is informal "
                                      "(Bolt-on §4.3); the noise is calibrated for any number up to max_epochs"}};
  if (sharded_) {
    m.details["privacy"]["distributed"] = sharded_->record;
    m.details["data"]["distribution"] = distributed::describe(config_);
  }
  add_seed_and_warnings(m, config_, plan_.warnings);
  return m;
}

}  // namespace dptrain
