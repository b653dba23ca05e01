// Steps of a training run inside the backend shared by dp_train and dp_tune
// (one place, so the two cannot drift): who may train and with whose rights,
// the model-name check, and the engine's driver loop (the passes a run
// object asks for, each one SQL statement over the prepared table).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "access.h"
#include "core/training/config.h"
#include "core/engine/distributed.h"
#include "core/engine/run.h"

namespace dptrain::pg {

// The arguments dp_train and dp_tune share, as plain data (palloc'd strings,
// nullptr for SQL NULL), read at the positions each function's signature
// gives them, and copied into a TrainingConfig inside the core.
struct RunArgumentPositions {
  int label, features, algorithm, loss, epsilon, delta, learning_rate, name, seed, schedule, huber_h, averaging,
      reshuffle, radius, options, intercept;
};
struct RunArguments {
  const char* label;
  const char* features;
  const char* algorithm;
  const char* loss;
  const char* name;
  const char* schedule;
  const char* options;  // jsonb as text
  bool has_epsilon, has_delta, has_learning_rate, has_seed, has_radius, has_intercept;
  double epsilon, delta, learning_rate, huber_h, radius;
  int64 seed;
  bool averaging, reshuffle, intercept;
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
// With `columns` (features from ordinary columns) `features` is ignored and
// the caller reads if it may SELECT the label and every one of the columns.
RunIdentities decide_access(FunctionCallInfo fcinfo, Oid relid, const char* label, const char* features,
                            const dptrain::TrainingConfig& c, const struct FeatureColumns* columns = nullptr);

// The steps every run (dp_train, dp_tune) takes before it plans: who may
// train and the budget (decide_access), the algorithm and model names, the
// public facts of the data (inspect_training_data), the committed charge of
// a private run (ids->charge, ledger.h), then its shuffled copy,
// which are filled into *config (source, rows, dim, classes). Says so in a
// NOTICE when the classes were read from the data. `config` must live on the
// heap (it survives an ERROR here). Requires SPI_connect().
// With `in_place` other than No, a Citus hash-distributed source is not
// copied: its shape goes into *config (shard_rows, distribution_column), the
// run is checked for it (core/engine/distributed.h: refused with 0A000 before
// the charge; with `before_charge`, the caller checks its runs itself), and
// prep->distributed is set (prep->shuffled stays NULL). With Any (dp_train),
// a plain table may also be read in place and copied without a shuffle;
// Distributed (dp_tune) keeps the shuffled copy of every other
// table (its Split deals out the rows of the random order).
// `before_charge(arg)`, if given, runs once the facts are in *config and
// before the charge (dp_tune plans its candidates there, dp_train its run;
// it may ereport); without it, or with Any (dp_train), the algorithm's check
// of *config runs first (dp_tune checks each candidate itself).
// With prep->columns set (dp_train's features => ARRAY[...]), the encoding
// is built before the data is inspected (encoded_features.h) and the run
// is never in place.
enum class InPlace { No, Distributed, Any };
void begin_run(FunctionCallInfo fcinfo, Oid relid, const char* label, const char* features,
               ArrayType* declared_classes, const char* name, dptrain::TrainingConfig* config, RunIdentities* ids,
               struct PreparedData* prep, InPlace in_place = InPlace::No, void (*before_charge)(void*) = nullptr,
               void* before_charge_arg = nullptr);

// The start of a call that stores a model (dp_train, dp_tune, named `fn`):
// refused in a transaction that cannot write (writable_transaction.h,
// before any charge); its blessed result row type.
TupleDesc storing_call_row_type(FunctionCallInfo fcinfo, const char* fn);

// The last three columns of dp_train's and dp_tune's result row: the
// released model's weights as float8[d] (binary) or float8[K][d], its
// classes text[] and its details as stored (jsonb), into out[0..2].
void model_result_columns(const dptrain::Model& model, const char* stored_details, Datum* out);

// C++ scratch space of drive_run, owned by the caller's session object (no
// C++ object lives in drive_run's frame: it may ereport).
struct DriveScratch {
  std::string sql;
  std::vector<double> input;
  std::vector<dptrain::Progress> progress;
  int parts = 0;  // parts made by Split passes (dropped by drop_run_tables)
  int kind = 0;   // the current pass's PassKind, for its DEBUG1 timing
  // Set: the passes read this distributed source in place (no prepared table).
  std::optional<dptrain::distributed::Source> source;
  // With source: a plain local table read in place (local_source.h), not a
  // distributed one.
  bool local = false;
  Oid relid = InvalidOid;  // with source: the table every pass must read (statement_checks.h)
};

// Whose rights the passes run with. Over dptrain's own temp copy: the runner
// (the extension owner). Over the source itself (read in place, or a Citus
// table's shards): the reader -- the caller, or the table's owner for a
// caller with a budget only -- always as a security-restricted operation
// (train.cpp), never the extension owner: planning a statement over a table runs code of
// the table's owner (its index expressions and partial-index predicates are
// const-simplified by the planning role), which must not get the extension
// owner's rights (docs/governance.md, "Code the planner runs").
Oid pass_role(const RunIdentities& ids, const struct PreparedData& prep);

// The engine's SPI driver: executes the passes `run` asks for over the
// prepared table `prepared` (and its parts) until the run is done: one
// statement each, SQL from the core (engine/pass.h). Call it as pass_role().
// Reports the run's progress as NOTICEs ("dptrain: <prefix><message>");
// messages that depend on the noiseless data only if `show_data_dependent`
// (the caller may read the table). Requires SPI_connect().
void drive_run(dptrain::Run* run, const char* prepared, DriveScratch* scratch, bool show_data_dependent,
               const char* prefix);

// The source of a distributed prepared run (prep->distributed), for
// DriveScratch::source. C++: call inside DPT_CORE.
dptrain::distributed::Source distributed_source(const struct PreparedData& prep);

// Drops the prepared table and the parts drive_run made (nothing for a
// distributed source).
void drop_run_tables(const char* prepared, const DriveScratch& scratch);

// Points the scratch space at the source the passes read: a distributed
// table's shards (DriveScratch::source), a local table in place, or (neither)
// the prepared copy. After begin_run.
void set_pass_source(const struct PreparedData& prep, Oid relid, DriveScratch* scratch);

// drive_run over prep.shuffled as pass_role(ids, prep): over the source
// itself (read in place, a Citus table's shards) always as a
// security-restricted operation, like every other read of the source
// (docs/governance.md): planning runs code of the table's owner (index
// predicates), which must not leave temp objects in the caller's session.
void drive_run_as_pass_role(dptrain::Run* run, const RunIdentities& ids, const struct PreparedData& prep,
                            DriveScratch* scratch);
// drop_run_tables as ids.runner (the temp tables are the runner's).
void drop_run_tables_as_runner(const RunIdentities& ids, const struct PreparedData& prep, const DriveScratch& scratch);

}  // namespace dptrain::pg
