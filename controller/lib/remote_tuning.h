// `dptrain tune`: private hyperparameter tuning (Bolt-on Algorithm 3,
// docs/tuning.md) from the CLI, either with the controller in this process
// (the core's tuning::Tuner drives every candidate's epochs over libpq, in
// one transaction) or inside the server with one dp_tune call.
#pragma once

#include "core/tuning/private_tuning.h"
#include "remote_training.h"

namespace dptrain::client {

struct TuningOutcome {
  std::int64_t model_id = 0;
  Model model;                        // the chosen candidate, with the tuning metadata
  tuning::Candidate chosen;
  int candidates = 0;
  double seconds = 0.0;
};

// What this role lacks to run the tuning controller itself: what `dptrain
// train` needs (controller_missing_privileges) and EXECUTE on
// dptrain.training_split; empty if nothing.
std::string tuning_controller_missing_privileges(PgConnection& conn, const TrainingTarget& target,
                                                 const TrainingConfig& config);

TuningOutcome tune_with_controller(PgConnection& conn, const TrainingTarget& target, TrainingConfig config,
                                   const tuning::Grid& grid, bool show_progress);

TuningOutcome tune_in_server(PgConnection& conn, const TrainingTarget& target, const TrainingConfig& config,
                             const tuning::Grid& grid);

// Liu-Talwar random stopping (dp_tune(..., method => 'liu_talwar'), inside the
// server only: its charge of the total is made before any candidate runs).
// `grid_json`: dp_tune's grid (empty: the lists of `grid`); `gamma`: NaN = default.
struct LiuTalwarOutcome {
  std::int64_t model_id = 0;
  Model model;
  nlohmann::json chosen;  // the chosen grid point
  int grid_points = 0;
  double seconds = 0.0;
};
LiuTalwarOutcome tune_liu_talwar_in_server(PgConnection& conn, const TrainingTarget& target,
                                           const TrainingConfig& config, const tuning::Grid& grid,
                                           const std::string& grid_json, double gamma);

}  // namespace dptrain::client
