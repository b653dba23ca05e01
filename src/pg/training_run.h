// Steps of a training run inside the backend shared by dp_train and dp_tune
// (one place, so the two cannot drift): who may train and with whose rights,
// the model-name check, and the epochs (one aggregate query each over a
// prepared table, the state handed out and taken back by the core's Trainer).
#pragma once

#include <vector>

#include "access.h"
#include "core/training/config.h"
#include "core/training/trainer.h"

namespace dptrain::pg {

// The arguments dp_train and dp_tune share, as plain data (palloc'd strings,
// nullptr for SQL NULL), read at the positions each function's signature
// gives them, and copied into a TrainingConfig inside the core.
struct RunArgumentPositions {
  int label, features, algorithm, loss, epsilon, delta, learning_rate, name, seed, schedule, huber_h, averaging,
      reshuffle, radius, options;
};
struct RunArguments {
  const char* label;
  const char* features;
  const char* algorithm;
  const char* loss;
  const char* name;
  const char* schedule;
  const char* options;  // jsonb as text
  bool has_epsilon, has_delta, has_learning_rate, has_seed, has_radius;
  double epsilon, delta, learning_rate, huber_h, radius;
  int64 seed;
  bool averaging, reshuffle;
};
void read_run_arguments(FunctionCallInfo fcinfo, const RunArgumentPositions& at, RunArguments* out);
// C++ only (call inside DPT_CORE): the shared arguments into *config.
void apply_run_arguments(const RunArguments& a, dptrain::TrainingConfig* config);

// Who may train on `relid`, and whose rights read it (access.h): a caller
// that may SELECT the label and feature columns reads them itself; any other
// caller needs a privacy budget from the owner (ledger_precheck raises
// otherwise) and the data is read with the owner's rights. Seeded noise and
// runs without epsilon are refused under a budget before any data is read.
// Requires SPI_connect().
RunIdentities decide_access(FunctionCallInfo fcinfo, Oid relid, const char* label, const char* features,
                            const dptrain::TrainingConfig& c);

// The steps every run (dp_train, dp_tune) takes before it plans: who may
// train and the budget (decide_access), the algorithm and model names, the
// public facts of the data (inspect_training_data), the committed charge of
// a private run (ids->charge, ledger.h), then its shuffled copy,
// which are filled into *config (source, rows, dim, classes). Says so in a
// NOTICE when the classes were read from the data. `config` must live on the
// heap (it survives an ERROR here). Requires SPI_connect().
void begin_run(FunctionCallInfo fcinfo, Oid relid, const char* label, const char* features,
               ArrayType* declared_classes, const char* name, dptrain::TrainingConfig* config, RunIdentities* ids,
               struct PreparedData* prep);

// A released model's weights as SQL: float8[d] (binary) or float8[K][d].
ArrayType* weights_array(const dptrain::Model& model);

// Runs every planned epoch of `trainer` with `epoch_sql` (core/training/
// epoch_query.h) over the prepared table `shuffled`, reshuffling it between
// epochs if the plan says so. Call it as the runner. `input` is scratch
// space owned by the caller's session (no C++ object lives in this frame: it
// may ereport). Reports only public progress: "<progress>epoch e of k done"
// NOTICEs. Requires SPI_connect().
void run_training_epochs(dptrain::Trainer* trainer, const char* shuffled, const char* epoch_sql,
                         std::vector<double>* input, const char* progress);

}  // namespace dptrain::pg
