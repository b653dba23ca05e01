// The released model of a run that is not an EpochRun (P-FW, DP-AGD): the
// weights plus the metadata every dptrain model carries (data facts,
// randomness, seed, warnings), in the same layout EpochRun::release writes,
// so dptrain.models, the ledger and the CLI read them alike.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/privacy/random_source.h"
#include "core/training/config.h"

namespace dptrain {

struct ReleaseFacts {
  std::string algorithm;
  std::optional<double> epsilon;
  std::optional<double> delta;
  nlohmann::json hyperparameters = nlohmann::json::object();
  nlohmann::json privacy = nlohmann::json::object();
  std::vector<std::string> warnings;
  double seconds = 0;
};

Model released_model(const TrainingConfig& config, const WeightMatrix& weights, const ReleaseFacts& facts);

// The run's noise source: seeded (tests; the model then says it is not
// private) from config.seed and `stream`, else the OS-keyed secure stream.
// Returned by value (guaranteed copy elision): initialize a member with it.
privacy::RandomSource noise_source(const TrainingConfig& config, std::uint64_t stream);

// The argument checks of the full-gradient algorithms that need no fact of
// the data: validate_arguments, and the SGD arguments that do not apply.
void check_full_gradient_arguments(const TrainingConfig& config, const std::string& algorithm);
// check_full_gradient_arguments plus validate_common without the mini-batch
// check (full-gradient algorithms never use batch_size, so its default of 50
// must not refuse a small table).
void validate_full_gradient_common(const TrainingConfig& config, const std::string& algorithm);

}  // namespace dptrain
