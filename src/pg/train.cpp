// dp_train: the whole training run inside the backend. The logic is the
// core's run object (the same one `dptrain train` drives over libpq); this
// file only runs its SQL: decide who may train and with whose rights
// (access.h), check the caller's privacy budget, prepare the shuffled table,
// execute the passes the run asks for (training_run.h), store the released
// model and charge the budget in the same transaction (ledger.h).
#include <memory>
#include <string>
#include <vector>

#include "core/engine/distributed.h"
#include "core/engine/run.h"
#include "core/training/defaults.h"
#include "charged_context.h"
#include "encoded_features.h"
#include "ledger.h"
#include "models.h"
#include "phase_timing.h"
#include "training_data.h"
#include "training_run.h"

namespace {

// Everything C++ a dp_train call owns; deleted by a memory-context callback
// (also when the call fails or is cancelled).
struct TrainSession {
  dptrain::TrainingConfig config;
  std::unique_ptr<dptrain::Run> run;
  dptrain::pg::DriveScratch scratch;
  dptrain::Model model;
  std::string model_json;
  std::string notice;
  dptrain::defaults::Unset unset;
};

enum Arg {
  kSource, kLabel, kFeatures, kAlgorithm, kLoss, kEpsilon, kDelta, kEpochs, kBatchSize, kLambda,
  kLearningRate, kName, kSeed, kClasses, kSchedule, kHuberH, kAveraging, kReshuffle, kRadius, kOptions,
  kIntercept, kArgCount,
  // The overload on ordinary columns (features text[]; sql/48_encoding.sql) has three more.
  kBounds = kArgCount, kCategories, kNormalization, kColumnsArgCount
};

const char* arg_name(int i) {
  static const char* names[] = {"source", "label", "features", "algorithm", "loss", "epsilon", "delta",
                                "epochs", "batch_size", "lambda", "learning_rate", "name", "seed", "classes",
                                "schedule", "huber_h", "averaging", "reshuffle", "radius", "options", "intercept"};
  return names[i];
}

// The defaults the caller left to us (public facts only), then the whole
// plan (steps, noise) from public inputs only. C++: call inside DPT_CORE.
// On a distributed table, distributed::check first refuses what cannot run
// shard by shard, with these same defaults.
void plan_run(TrainSession* s) {
  s->notice = dptrain::defaults::apply(&s->config, s->unset);
  if (s->config.distributed()) dptrain::distributed::check(s->config);
  s->run = dptrain::start_run(s->config);
}

// begin_run's hook: the run's whole plan from the public facts (n, d, the
// classes) before the charge, so that a run its plan refuses (batch_size >
// n, two classes only, a step above 2/beta, ...) costs nothing, as in
// dp_tune. The run planned here is the one step 4 drives (begin_run changes
// no part of the config after its hook): planning twice cost DP-SGD's RDP
// calibration twice, 2.5-10 ms of CPU per call (the others 30-190 us).
// On a distributed table too (the plan reads the shards' row counts, public:
// docs/distributed.md section 2): checked there with the classic defaults
// instead, a 30-row table in 4 shards was refused "batch_size (50) is
// larger than the number of rows (30)" where the run would take 30.
void plan_before_charge(void* arg) {
  auto* s = static_cast<TrainSession*>(arg);
  DPT_CORE({ plan_run(s); });
}

// dp_train's arguments that must not be NULL (the others have a default
// or mean something when NULL).
void refuse_null_arguments(FunctionCallInfo fcinfo) {
  for (int i : {kSource, kLabel, kFeatures, kLoss, kHuberH, kAveraging, kReshuffle, kOptions})
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("argument %s of dp_train must not be NULL",
                                                                      arg_name(i)),
                      errhint("Leave the argument out to use its default.")));
}

// epochs, batch_size and lambda as given (NULL: the defaults of
// core/training/defaults.h, filled in once n and d are known).
struct SizeArguments {
  dptrain::defaults::Unset unset;
  int epochs = 0;
  int batch_size = 0;
  double lambda = 0;
};

SizeArguments read_size_arguments(FunctionCallInfo fcinfo) {
  SizeArguments a;
  a.unset = {PG_ARGISNULL(kAlgorithm), PG_ARGISNULL(kEpochs), PG_ARGISNULL(kBatchSize), PG_ARGISNULL(kLambda)};
  if (!a.unset.epochs) a.epochs = PG_GETARG_INT32(kEpochs);
  if (!a.unset.batch_size) a.batch_size = PG_GETARG_INT32(kBatchSize);
  if (!a.unset.lambda) a.lambda = PG_GETARG_FLOAT8(kLambda);
  return a;
}

// Step 1: the arguments, checked before any data is read. C++: call inside DPT_CORE.
std::unique_ptr<TrainSession> new_train_session(const dptrain::pg::RunArguments& args, const SizeArguments& a) {
  auto session = std::make_unique<TrainSession>();
  dptrain::TrainingConfig& c = session->config;
  dptrain::pg::apply_run_arguments(args, &c);
  session->unset = a.unset;
  if (!a.unset.epochs) c.epochs = a.epochs;
  if (!a.unset.batch_size) c.batch_size = a.batch_size;
  if (!a.unset.lambda) c.lambda = a.lambda;
  dptrain::defaults::apply(&c, a.unset);
  dptrain::validate_arguments(c);
  return session;
}

// Step 6: the release (output perturbation etc.) into s->model and
// s->model_json. C++: call inside DPT_CORE.
void release_model(TrainSession* s, bool caller_reads, double seconds) {
  s->model = s->run->release(seconds);
  if (s->config.distributed()) dptrain::distributed::annotate(s->model, s->config);
  if (s->config.distributed() && !caller_reads) dptrain::distributed::redact_shard_rows(s->model);
  // The time of the passes tracks AMP's and the optimum's data-dependent number of
  // passes and OPDisc's solve time, none of which is part of the release: a role without read
  // access gets no time in its model (docs/governance.md, "What a model's metadata says").
  if (!caller_reads) s->model.details.erase("seconds");
  s->model_json = s->model.to_json().dump();
}

// dp_train's result row.
HeapTuple train_result(TupleDesc tupdesc, int64 id, const dptrain::Model& m, const char* stored_details) {
  Datum values[8];
  bool nulls[8] = {false, false, false, false, false, false, false, false};
  values[0] = Int64GetDatum(id);
  if (m.name.empty()) nulls[1] = true;
  else values[1] = CStringGetTextDatum(m.name.c_str());
  values[2] = CStringGetTextDatum(m.algorithm.c_str());
  if (m.epsilon) values[3] = Float8GetDatum(*m.epsilon);
  else nulls[3] = true;
  if (m.delta) values[4] = Float8GetDatum(*m.delta);
  else nulls[4] = true;
  dptrain::pg::model_result_columns(m, stored_details, values + 5);
  return heap_form_tuple(tupdesc, values, nulls);
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_train);

Datum dptrain_dp_train(PG_FUNCTION_ARGS) {
  refuse_null_arguments(fcinfo);
  // Storing the model needs a writable transaction: refused now, before any charge.
  const TupleDesc tupdesc = dptrain::pg::storing_call_row_type(fcinfo, "dp_train");
  MemoryContext caller = CurrentMemoryContext;

  // dp_train(..., features => ARRAY['age', ...], bounds, categories, normalization)
  const bool on_columns = PG_NARGS() == kColumnsArgCount;
  dptrain::pg::FeatureColumns columns;
  if (on_columns) dptrain::pg::read_feature_columns(fcinfo, kFeatures, kBounds, kCategories, kNormalization, &columns);
  dptrain::pg::RunArguments args;
  dptrain::pg::read_run_arguments(fcinfo, {kLabel, on_columns ? -1 : kFeatures, kAlgorithm, kLoss, kEpsilon, kDelta, kLearningRate, kName,
                                           kSeed, kSchedule, kHuberH, kAveraging, kReshuffle, kRadius, kOptions, kIntercept},
                                  &args);
  const SizeArguments sizes = read_size_arguments(fcinfo);

  // 1. Arguments, before any data is read.
  TrainSession* s = nullptr;
  DPT_CORE({ s = new_train_session(args, sizes).release(); });
  dptrain::pg::delete_on_reset(caller, s);

  // 2. Who may train here, and the budget, before any data is read.
  SPI_connect();
  const Oid relid = PG_GETARG_OID(kSource);
  // 3. Public facts of the data and one random permutation of it.
  dptrain::pg::RunIdentities ids;
  dptrain::pg::PreparedData prep;
  dptrain::pg::ChargedContext charged;
  dptrain::pg::push_charged_context(&charged, &ids.charge, "dp_train");
  if (on_columns) prep.columns = &columns;
  // The defaults that wait for n and d (an algorithm left out) may still
  // fill in the step; with it named or the step given, they change nothing
  // the run's own argument checks read (core/training/defaults.h).
  prep.run_arguments_final = !s->unset.algorithm || s->config.learning_rate.has_value();
  dptrain::pg::begin_run(fcinfo, relid, args.label, args.features, PG_ARGISNULL(kClasses) ? nullptr : PG_GETARG_ARRAYTYPE_P(kClasses),
                         args.name, &s->config, &ids, &prep, dptrain::pg::InPlace::Any, plan_before_charge, s);
  dptrain::pg::set_pass_source(prep, relid, &s->scratch);

  // 4. The defaults the caller left to us (public facts only), then the whole
  // plan (steps, noise) from public inputs only: made by the hook above
  // before the charge.
  if (!s->run) DPT_CORE({ plan_run(s); });
  if (!s->notice.empty()) ereport(NOTICE, (errmsg("dptrain: %s", s->notice.c_str())));
  for (const std::string& w : s->run->warnings()) ereport(WARNING, (errmsg("%s", w.c_str())));

  // 5. The passes the run asks for; only public progress is reported.
  const TimestampTz start = GetCurrentTimestamp();
  dptrain::pg::drive_run_as_pass_role(s->run.get(), ids, prep, &s->scratch);
  dptrain::pg::PhaseClock clock;
  clock.shown = ids.caller_reads;
  clock.start();
  dptrain::pg::drop_run_tables_as_runner(ids, prep, s->scratch);
  clock.mark("cleanup");

  // 6. Release (output perturbation etc.), store and charge, in this transaction.
  const double seconds = dptrain::pg::seconds_since(start);
  DPT_CORE({ release_model(s, ids.caller_reads, seconds); });
  for (const std::string& w : s->run->release_warnings()) ereport(WARNING, (errmsg("%s", w.c_str())));
  clock.mark("release");
  char* stored_details = nullptr;
  const int64 id = dptrain::pg::store_model_json(s->model_json.c_str(), ids, relid, prep.source_name, &stored_details,
                                                     prep.encoding);
  stored_details = MemoryContextStrdup(caller, stored_details);  // SPI_finish frees SPI's memory
  clock.mark("store");
  SPI_finish();
  dptrain::pg::pop_charged_context(&charged);

  PG_RETURN_DATUM(HeapTupleGetDatum(train_result(tupdesc, id, s->model, stored_details)));
}

}  // extern "C"
