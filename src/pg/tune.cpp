// dp_tune: private hyperparameter tuning inside the backend (Bolt-on
// Algorithm 3; the logic is the core's tuning::Tuner, the same one
// `dptrain tune` drives over libpq; docs/tuning.md). The tuner is a run
// object like any training run, so this file is dp_train's steps
// (training_run.h): who may train and the privacy budget, prepare the table,
// execute the passes the tuner asks for (split, every candidate's epochs on
// its part, each released candidate's evaluation on the held-out part),
// store the chosen model and charge its total (epsilon, delta) to the budget.
#include <memory>
#include <string>
#include <vector>

#include "core/training/intercept.h"
#include "core/tuning/private_tuning.h"
#include "models.h"
#include "training_data.h"
#include "training_run.h"

namespace {

struct TuneSession {
  dptrain::TrainingConfig config;
  dptrain::tuning::Grid grid;
  std::unique_ptr<dptrain::tuning::Tuner> tuner;
  dptrain::pg::DriveScratch scratch;
  dptrain::Model model;
  std::string json;
};

enum Arg {
  kSource, kLabel, kFeatures, kAlgorithm, kLoss, kEpsilon, kDelta, kLambdas, kEpochs, kBatchSizes, kLearningRate,
  kName, kSeed, kClasses, kSchedule, kHuberH, kAveraging, kReshuffle, kRadius, kOptions, kIntercept, kArgCount
};

const char* arg_name(int i) {
  static const char* names[] = {"source", "label", "features", "algorithm", "loss", "epsilon", "delta",
                                "lambdas", "epochs", "batch_sizes", "learning_rate", "name", "seed", "classes",
                                "schedule", "huber_h", "averaging", "reshuffle", "radius", "options", "intercept"};
  return names[i];
}

// A one-dimensional int[] without NULLs (an empty array gives n = 0).
int32* int4_array(ArrayType* a, int* n, const char* what) {
  if (ARR_NDIM(a) > 1 || (ARR_HASNULL(a) && array_contains_nulls(a)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s must be a one-dimensional array without NULLs", what)));
  Datum* items;
  deconstruct_array(a, INT4OID, 4, true, TYPALIGN_INT, &items, nullptr, n);
  int32* out = static_cast<int32*>(palloc(sizeof(int32) * (*n > 0 ? *n : 1)));
  for (int i = 0; i < *n; ++i) out[i] = DatumGetInt32(items[i]);
  return out;
}

const double* float8_list(ArrayType* a, int* n, const char* what) {
  if (ARR_NDIM(a) == 0) {
    *n = 0;
    return nullptr;
  }
  return dptrain::pg::float8_array_data(a, n, what);
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_tune);

Datum dptrain_dp_tune(PG_FUNCTION_ARGS) {
  for (int i : {kSource, kLabel, kFeatures, kAlgorithm, kLoss, kLambdas, kEpochs, kBatchSizes, kHuberH, kAveraging,
                kReshuffle, kOptions})
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("argument %s of dp_tune must not be NULL", arg_name(i)),
                      errhint("Leave the argument out to use its default.")));
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) elog(ERROR, "dp_tune must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  MemoryContext caller = CurrentMemoryContext;

  dptrain::pg::RunArguments args;
  dptrain::pg::read_run_arguments(fcinfo, {kLabel, kFeatures, kAlgorithm, kLoss, kEpsilon, kDelta, kLearningRate, kName,
                                           kSeed, kSchedule, kHuberH, kAveraging, kReshuffle, kRadius, kOptions, kIntercept},
                                  &args);
  int nlambdas = 0, nepochs = 0, nbatches = 0;
  const double* lambdas = float8_list(PG_GETARG_ARRAYTYPE_P(kLambdas), &nlambdas, "lambdas");
  const int32* epochs = int4_array(PG_GETARG_ARRAYTYPE_P(kEpochs), &nepochs, "epochs");
  const int32* batches = int4_array(PG_GETARG_ARRAYTYPE_P(kBatchSizes), &nbatches, "batch_sizes");

  // 1. Arguments and the grid, before any data is read.
  TuneSession* s = nullptr;
  DPT_CORE({
    auto session = std::make_unique<TuneSession>();
    dptrain::TrainingConfig& c = session->config;
    dptrain::pg::apply_run_arguments(args, &c);
    dptrain::tuning::Grid& g = session->grid;
    g.lambdas.assign(lambdas, lambdas + nlambdas);
    g.epochs.assign(epochs, epochs + nepochs);
    g.batch_sizes.assign(batches, batches + nbatches);
    dptrain::validate_arguments(c);
    dptrain::tuning::check_tunable(c);
    dptrain::tuning::expand(g);
    s = session.release();
  });
  dptrain::pg::delete_on_reset(caller, s);

  // 2. Who may tune here, and the budget (the total epsilon and delta), before any data is read.
  SPI_connect();
  const Oid relid = PG_GETARG_OID(kSource);
  // 3. Public facts of the data and one random permutation of it.
  dptrain::pg::RunIdentities ids;
  dptrain::pg::PreparedData prep;
  dptrain::pg::begin_run(fcinfo, relid, args.label, args.features, PG_ARGISNULL(kClasses) ? nullptr : PG_GETARG_ARRAYTYPE_P(kClasses),
                         args.name, &s->config, &ids, &prep);

  // 4. Every candidate's plan, for its part size, from public inputs only.
  DPT_CORE({ s->tuner = std::make_unique<dptrain::tuning::Tuner>(dptrain::intercept::planned_config(s->config), s->grid); });
  for (const std::string& w : s->tuner->warnings()) ereport(WARNING, (errmsg("%s", w.c_str())));

  // 5. The l + 1 disjoint parts, every candidate on its own part, its
  // released model scored on the held-out part; as the runner: the temp
  // tables, the epochs and the held-out counts are its.
  const TimestampTz start = GetCurrentTimestamp();
  dptrain::pg::IdentitySwitch as_runner;
  dptrain::pg::switch_identity(&as_runner, ids.runner, false);
  dptrain::pg::drive_run(s->tuner.get(), prep.shuffled, &s->scratch, ids.caller_reads, "");
  dptrain::pg::drop_run_tables(prep.shuffled, s->scratch);
  dptrain::pg::restore_identity(&as_runner);
  const int candidates = s->tuner->candidates();

  // 6. The exponential mechanism; the chosen model stored and charged like dp_train's.
  const double seconds = dptrain::pg::seconds_since(start);
  DPT_CORE({
    s->model = dptrain::intercept::released_model(s->tuner->release(seconds), s->config);
    s->json = s->model.to_json().dump();
  });
  const int64 id = dptrain::pg::store_model_json(s->json.c_str(), ids, relid, prep.source_name);
  SPI_finish();

  const dptrain::Model& m = s->model;
  const dptrain::tuning::Candidate& chosen = s->tuner->candidate(s->tuner->chosen());
  Datum values[12];
  bool nulls[12] = {false, false, false, false, false, false, false, false, false, false, false, false};
  values[0] = Int64GetDatum(id);
  if (m.name.empty()) nulls[1] = true;
  else values[1] = CStringGetTextDatum(m.name.c_str());
  values[2] = CStringGetTextDatum(m.algorithm.c_str());
  values[3] = Float8GetDatum(m.epsilon.value_or(0.0));
  values[4] = Float8GetDatum(m.delta.value_or(0.0));
  values[5] = Float8GetDatum(chosen.lambda);
  values[6] = Int32GetDatum(chosen.epochs);
  values[7] = Int32GetDatum(static_cast<int32>(chosen.batch_size));
  values[8] = Int32GetDatum(candidates);
  values[9] = PointerGetDatum(dptrain::pg::weights_array(m));
  values[10] = PointerGetDatum(dptrain::pg::make_text_array(m.classes.data(), static_cast<int>(m.classes.size())));
  DPT_CORE({ s->json = m.details.dump(); });
  values[11] = DirectFunctionCall1(jsonb_in, CStringGetDatum(s->json.c_str()));
  PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

}  // extern "C"
