// The parts of a released model's details that every run writes alike
// (EpochRun, AMP, the optimum, DP-SGD, OPDisc, released_model): the layout
// dptrain.models, the ledger and the CLI read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/training/config.h"

namespace dptrain {

// details.data: the public facts of the data the run saw.
nlohmann::json data_facts(const TrainingConfig& config);

// details.randomness: where the noise came from; `what` names it when the
// secure stream drew more than noise (e.g. "lots and noise").
std::string randomness_note(bool seeded, const std::string& what = "");

// details.seed (seeded runs) and details.warnings (if any).
void add_seed_and_warnings(Model& model, const TrainingConfig& config, const std::vector<std::string>& warnings);

}  // namespace dptrain
