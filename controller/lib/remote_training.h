// `dptrain train`: the paper's controller, outside the database. It
// prepares the shuffled table on the server (or, for an order-free run,
// reads the table as dp_train does: in place under one REPEATABLE READ
// snapshot, or copied without shuffle), executes over libpq the passes
// the core's run object asks for (the same run and the same SQL dp_train
// uses), and stores the released model through the server's
// dptrain.store_model -- all in one transaction, so a failed or cancelled
// run leaves nothing behind.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/training/config.h"
#include "core/training/defaults.h"
#include "core/engine/run.h"
#include "pg_connection.h"
#include "progress.h"

namespace dptrain::client {

struct TrainingTarget {
  std::string table;
  std::string label = "y";
  std::string features = "x";
  std::optional<std::vector<std::string>> classes;  // declared classes
  // Ordinary columns encoded in the server (dp_train(..., features =>
  // ARRAY[...]), docs/encoding.md): then `features` is not used, and the run
  // goes to the server.
  std::optional<std::vector<std::string>> columns;
  std::string bounds = "{}", categories = "{}", normalization = "l2";
};

struct TrainingOutcome {
  std::int64_t model_id = 0;
  Model model;
  double seconds = 0.0;
  int epochs = 0;
};

// Drives the epochs from this process (needs the privileges of a role the
// data owner trusts with the raw data: EXECUTE on dptrain.sgd_epoch).
// `unset`: what the caller left out, filled by core/training/defaults.h once n and d are known.
TrainingOutcome train_with_controller(PgConnection& conn, const TrainingTarget& target, TrainingConfig config,
                                      bool show_progress, const defaults::Unset& unset = {});

// What this role lacks to run the controller itself (EXECUTE on dptrain's
// internal functions and the aggregate of the run's passes -- the epoch
// aggregate, or the gradient sum of AMP, optimum, P-FW, DP-AGD --, SELECT on the label and
// feature columns), as a readable list; empty if nothing. An analyst who may
// train on a table only through a privacy budget lacks all of it and trains
// with dp_train inside the server instead (docs/governance.md).
std::string controller_missing_privileges(PgConnection& conn, const TrainingTarget& target,
                                          const TrainingConfig& config);

// Runs the whole training inside the server with one dp_train call.
TrainingOutcome train_in_server(PgConnection& conn, const TrainingTarget& target, const TrainingConfig& config,
                                 const defaults::Unset& unset = {});

std::string to_text_array_literal(const std::vector<std::string>& values);

// A call of a dptrain function with named arguments whose values travel as
// parameters ($n), never pasted into the SQL. Starts with the arguments
// dp_train and dp_tune share (source, columns, algorithm, loss, privacy,
// and every hyperparameter but epochs / batch size / lambda).
class NamedCall {
 public:
  NamedCall(std::string function, const TrainingTarget& target, const TrainingConfig& config);
  void add(const std::string& name, const std::string& type, Param value);
  // SELECT <columns> FROM function(...)
  std::string sql(const std::string& columns) const;
  const std::vector<Param>& params() const { return params_; }

 private:
  std::string function_;
  std::string arguments_;
  std::vector<Param> params_;
};

// %.17g: a double as text that reads back exactly.
std::string exact_number(double v);

// True if `table` (resolved) is a Citus hash-distributed table: `dptrain
// train` then runs dp_train, which trains it in place (docs/distributed.md
// section 9); the controller would copy its rows.
bool is_distributed_table(PgConnection& conn, const std::string& table);

// Building blocks shared with `dptrain tune` (remote_tuning.h):
// dptrain.training_prepare for `target`: fills the public facts of `config`
// (rows, dim, classes, source) and returns the shuffled temp table's name.
std::string prepare_remote_table(PgConnection& conn, const TrainingTarget& target, TrainingConfig& config);
// The engine's libpq driver: executes the passes `run` asks for over the
// prepared table `prepared` (and its parts) until the run is done, then drops
// those tables. Progress goes to `bar` (if any) and, when `verbose`, every
// progress message to stderr.
void drive_remote(PgConnection& conn, Run& run, const std::string& prepared, ProgressBar* bar);
// A stored model read back from dptrain.models.
Model fetch_model(PgConnection& conn, std::int64_t id);

}  // namespace dptrain::client
