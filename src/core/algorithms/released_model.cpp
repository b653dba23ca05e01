#include "core/algorithms/released_model.h"

#include "core/engine/model_details.h"
#include "core/error.h"
#include "core/privacy/random_source.h"

namespace dptrain {

Model released_model(const TrainingConfig& c, const WeightMatrix& weights, const ReleaseFacts& f) {
  Model m;
  m.name = c.name;
  m.algorithm = f.algorithm;
  m.loss = parse_loss(c.loss);
  m.huber_h = c.huber_h;
  m.feature_bound = c.feature_bound;
  m.classes = c.classes;
  m.weights = weights;
  m.epsilon = f.epsilon;
  m.delta = f.delta;
  m.seeded = c.seed.has_value();
  m.details = {
      {"hyperparameters", f.hyperparameters},
      {"data", data_facts(c)},
      {"privacy", f.privacy},
      {"randomness", randomness_note(m.seeded)},
      {"seconds", f.seconds},
  };
  add_seed_and_warnings(m, c, f.warnings);
  return m;
}

privacy::RandomSource noise_source(const TrainingConfig& c, std::uint64_t stream) {
  return c.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*c.seed), stream)
                : privacy::RandomSource::secure();
}

void check_full_gradient_arguments(const TrainingConfig& c, const std::string& algorithm) {
  validate_arguments(c);
  auto bad = [&](const std::string& what, const std::string& why) {
    fail(ErrorKind::InvalidParameter, what + " does not apply to " + algorithm, why,
         "Drop it: " + algorithm + " computes the full-data gradient in every iteration.");
  };
  if (c.learning_rate) bad("learning_rate", "Its step sizes are fixed by the algorithm.");
  if (c.schedule) bad("schedule", "Its step sizes are fixed by the algorithm.");
  if (c.averaging) bad("averaging", "It releases its last iterate.");
  if (c.reshuffle) bad("reshuffle", "It reads every row in every pass; the order plays no role.");
}

void validate_full_gradient_common(const TrainingConfig& c, const std::string& algorithm) {
  check_full_gradient_arguments(c, algorithm);
  TrainingConfig checked = c;
  checked.batch_size = 1;  // no mini-batches: only the other common checks apply
  validate_common(checked);
}

}  // namespace dptrain
