// What `dptrain train` and `dptrain tune` share: the table and columns, the
// hyperparameters every run has, and the choice between driving the epochs
// from here (controller) and running inside the server.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/training/config.h"
#include "pg_connection.h"
#include "remote_training.h"

namespace dptrain::cli {

struct RunOptions {
  std::string db;
  client::TrainingTarget target;
  std::vector<std::string> classes;
  TrainingConfig config;
  double epsilon = 0, delta = 0, learning_rate = 0, radius = 0;
  std::int64_t seed = 0;
  std::string schedule, options = "{}";
  bool server = false, controller = false, json = false, no_intercept = false, intercept = false;
};

// Registers the shared flags. `run` is "training" or "tuning", `server_function`
// dp_train or dp_tune (for the help texts).
void add_run_options(CLI::App* cmd, RunOptions& o, const std::string& run, const std::string& server_function);

// Moves the flags that were given into o.config and o.target.
void apply_run_options(RunOptions& o, const CLI::App& cmd);
// The run's intercept from --intercept / --no-intercept / the algorithm's default.
bool intercept_of(const RunOptions& o, const std::string& algorithm);

// True if the run goes to the server: asked for, or this role lacks the
// controller's privileges (`missing_privileges` names them; then a NOTICE,
// or an error with --controller).
bool use_server(const RunOptions& o, const std::function<std::string()>& missing_privileges, const std::string& run,
                const std::string& server_function);

// --columns: ordinary columns encoded in the server (dp_train / dp_tune with
// features => ARRAY[...], docs/encoding.md), with their declarations.
struct ColumnOptions {
  std::vector<std::string> columns;
  std::string bounds = "{}", categories = "{}", normalization = "l2";
};
void add_column_options(CLI::App* cmd, ColumnOptions& k);
// Into o.target (and the run goes to the server: only `server_function`
// applies an encoding); refuses --bounds & co. without --columns, --columns
// with --features, and --controller.
void apply_column_options(const ColumnOptions& k, RunOptions& o, const CLI::App& cmd,
                          const std::string& server_function);

// The --json fields every stored run prints (train and tune add their own).
nlohmann::json stored_model_json(std::int64_t model_id, const Model& m, double seconds, bool server);

}  // namespace dptrain::cli
