#include "core/training/trainer.h"

#include <Eigen/Core>
#include <cmath>

#include "core/error.h"
#include "core/packed_model.h"
#include "core/privacy/random_source.h"

namespace dptrain {
namespace {

// Stream of a test seed that keys the white-box noise (distinct from the
// stream 0 that finish() uses for output perturbation).
constexpr std::uint64_t kWhiteBoxKeyStream = 0x77686974'65626f78;  // "whitebox"

}  // namespace

Trainer::Trainer(TrainingConfig config) : Trainer(config, make_algorithm(config.algorithm)) {}

Trainer::Trainer(TrainingConfig config, std::unique_ptr<Algorithm> algorithm)
    : config_(std::move(config)), algorithm_(std::move(algorithm)) {
  if (!algorithm_) fail(ErrorKind::Internal, "Trainer without an algorithm");
  plan_ = algorithm_->plan(config_);
  epoch_config_ = plan_.epoch;
  if (plan_.epoch.noise != privacy::BatchNoiseKind::None || plan_.epoch.sampled_batches) {
    // One fresh 256-bit key per run; every batch then reads its own stream
    // (nonce = update index), every BST14 epoch its own sampling stream.
    privacy::RandomSource rng =
        config_.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*config_.seed), kWhiteBoxKeyStream)
                     : privacy::RandomSource::secure();
    epoch_config_.noise_key = privacy::key_to_words(privacy::draw_key(rng));
    epoch_config_.noise_seeded = config_.seed.has_value();
  }
  const std::size_t n = static_cast<std::size_t>(plan_.epoch.dim) * plan_.epoch.models;
  weights_.assign(n, 0.0);
  if (plan_.epoch.averaging) average_.assign(n, 0.0);
  // Builds (and validates) one state now, so a bad plan fails before any data is read.
  epoch_input();
}

std::vector<double> Trainer::epoch_input() const {
  return epoch_state::make_state(epoch_config_, weights_.data(), updates_,
                                 plan_.epoch.averaging ? average_.data() : nullptr, averaged_);
}

std::int64_t Trainer::rows_per_epoch() const {
  return plan_.epoch.sampled_batches ? config_.updates_per_epoch() * config_.batch_size : config_.rows;
}

void Trainer::epoch_output(const double* s, std::size_t len) {
  if (!needs_epoch()) fail(ErrorKind::Internal, "more epochs than planned");
  epoch_state::validate(s, len);
  const std::vector<double> expected = epoch_input();
  if (len != expected.size() || !epoch_state::same_run(s, expected.data()))
    fail(ErrorKind::InvalidState, "the epoch returned a state of a different training configuration");
  if (epoch_state::rows(s) != static_cast<std::uint64_t>(rows_per_epoch()))
    fail(ErrorKind::Internal,
         plan_.epoch.sampled_batches ? "the epoch did not see every sampled batch in full"
                                     : "the epoch did not see every row exactly once",
         "It saw " + std::to_string(epoch_state::rows(s)) + " rows, expected " + std::to_string(rows_per_epoch()) +
             " (the table has " + std::to_string(config_.rows) + ").",
         "Was the table modified during training?");
  // Every update of the epoch drew its noise from the stream of its own
  // update index; the next epoch continues from the public count.
  if (epoch_state::updates(s) != updates_ + static_cast<std::uint64_t>(config_.updates_per_epoch()))
    fail(ErrorKind::Internal, "the epoch made an unexpected number of updates");
  const double* w = epoch_state::weights(s);
  std::copy(w, w + weights_.size(), weights_.begin());
  if (plan_.epoch.averaging) {
    const double* a = epoch_state::average(s);
    std::copy(a, a + average_.size(), average_.begin());
    averaged_ = epoch_state::averaged(s);
  }
  // The public update count of a sequential epoch: ceil(n / b).
  updates_ += static_cast<std::uint64_t>(config_.updates_per_epoch());
  ++epochs_done_;
}

std::vector<double> Trainer::current_packed_model() const {
  Model m;
  m.loss = plan_.epoch.loss;
  m.huber_h = plan_.epoch.huber_h;
  m.feature_bound = plan_.epoch.feature_bound;
  const std::vector<double>& w = plan_.epoch.averaging ? average_ : weights_;
  m.weights = Eigen::Map<const WeightMatrix>(w.data(), plan_.epoch.models, plan_.epoch.dim);
  return packed_model::pack(m);
}

void Trainer::training_loss(double mean_loss) {
  if (!wants_training_loss()) fail(ErrorKind::Internal, "training_loss() without a convergence tolerance");
  if (!std::isfinite(mean_loss) || mean_loss < 0) fail(ErrorKind::Internal, "invalid training loss");
  // The objective SGD minimizes: mean loss + (lambda/2) ||w||^2 (per model).
  const std::vector<double>& w = plan_.epoch.averaging ? average_ : weights_;
  const double squared = Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size())).squaredNorm();
  const double objective = mean_loss + 0.5 * plan_.epoch.lambda * squared / plan_.epoch.models;
  // Bismarck's rule: stop when (previous - current) / previous < tolerance.
  if (previous_objective_ > 0 && (previous_objective_ - objective) / previous_objective_ < plan_.stop_tolerance)
    stopped_ = true;
  previous_objective_ = objective;
}

Model Trainer::finish(double seconds) {
  if (epochs_done_ != plan_.epochs && !stopped_)
    fail(ErrorKind::Internal, "finish() before all planned epochs ran");
  const int K = plan_.epoch.models, d = plan_.epoch.dim;
  const std::vector<double>& source = plan_.epoch.averaging ? average_ : weights_;
  WeightMatrix w = Eigen::Map<const WeightMatrix>(source.data(), K, d);

  privacy::RandomSource rng = config_.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*config_.seed))
                                           : privacy::RandomSource::secure();
  algorithm_->release(config_, plan_, w, rng);

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
      {"data", {{"source", config_.source},
                {"rows", config_.rows},
                {"dim", config_.dim},
                {"classes", config_.classes},
                {"classes_from_data", config_.classes_from_data}}},
      {"privacy", plan_.privacy},
      {"randomness", m.seeded ? "seeded (reproducible, NOT private: for tests only)"
                              : "libsodium CSPRNG (ChaCha20 keyed from the OS)"},
      {"seconds", seconds},
  };
  if (plan_.stop_tolerance > 0)
    m.details["stopping"] = {{"tolerance", plan_.stop_tolerance},
                             {"max_epochs", plan_.epochs},
                             {"epochs_run", epochs_done_},
                             {"note", "data-dependent number of epochs: the privacy argument is informal "
                                      "(Bolt-on §4.3); the noise is calibrated for any number up to max_epochs"}};
  if (config_.seed) m.details["seed"] = *config_.seed;
  if (!plan_.warnings.empty()) m.details["warnings"] = plan_.warnings;
  return m;
}

}  // namespace dptrain
