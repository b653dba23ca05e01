// dp_tune: private hyperparameter tuning inside the backend, by one of two
// methods (docs/tuning.md): 'holdout', Bolt-on Algorithm 3 over (lambda,
// epochs, batch size) (the core's tuning::Tuner, the same one `dptrain tune`
// drives over libpq), or 'liu_talwar', random stopping over a grid of any
// parameters of any private algorithm (tuning::LiuTalwarTuner). The tuner is a run
// object like any training run, so this file is dp_train's steps
// (training_run.h): who may train and the privacy budget, prepare the table,
// execute the passes the tuner asks for (split, every candidate's epochs on
// its part, each released candidate's evaluation on the held-out part),
// store the chosen model and charge its total (epsilon, delta) to the budget.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/training/intercept.h"
#include "core/tuning/liu_talwar_tuner.h"
#include "core/tuning/private_tuning.h"
#include "charged_context.h"
#include "distributed_source.h"
#include "encoded_features.h"
#include "models.h"
#include "training_data.h"
#include "training_run.h"

namespace {

struct TuneSession {
  dptrain::TrainingConfig config;
  dptrain::tuning::Grid grid;
  bool liu_talwar = false;
  std::optional<dptrain::tuning::ParameterGrid> parameter_grid;  // liu_talwar
  std::optional<double> gamma;
  std::unique_ptr<dptrain::tuning::Tuner> tuner;                  // holdout
  std::unique_ptr<dptrain::tuning::LiuTalwarTuner> lt_tuner;      // liu_talwar
  dptrain::Run* run = nullptr;
  dptrain::pg::DriveScratch scratch;
  dptrain::Model model;
  std::string json;
  // For the hook before the charge (a distributed table's keyed split).
  Oid relid = InvalidOid;
  const dptrain::pg::RunIdentities* ids = nullptr;
  const dptrain::pg::PreparedData* prep = nullptr;
  std::optional<dptrain::tuning::KeyedSplit> split;
};

enum Arg {
  kSource, kLabel, kFeatures, kAlgorithm, kLoss, kEpsilon, kDelta, kLambdas, kEpochs, kBatchSizes, kLearningRate,
  kName, kSeed, kClasses, kSchedule, kHuberH, kAveraging, kReshuffle, kRadius, kOptions, kGrid, kMethod, kGamma,
  kIntercept, kArgCount,
  // The overload on ordinary columns (features text[]; sql/50_tuning.sql) has three more.
  kBounds = kArgCount, kCategories, kNormalization, kColumnsArgCount
};

const char* arg_name(int i) {
  static const char* names[] = {"source", "label", "features", "algorithm", "loss", "epsilon", "delta",
                                "lambdas", "epochs", "batch_sizes", "learning_rate", "name", "seed", "classes",
                                "schedule", "huber_h", "averaging", "reshuffle", "radius", "options",
                                "grid", "method", "gamma", "intercept"};
  return names[i];
}

// A one-dimensional int[] without NULLs (an empty array gives n = 0).
int32* int4_array(ArrayType* a, int* n, const char* what) {
  if (ARR_NDIM(a) > 1 || (ARR_HASNULL(a) && array_contains_nulls(a)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s must be a one-dimensional array without NULLs", what),
                    errhint("E.g. epochs => '{1,5,10}', batch_sizes => '{50}'.")));
  Datum* items;
  deconstruct_array(a, INT4OID, 4, true, TYPALIGN_INT, &items, nullptr, n);
  int32* out = static_cast<int32*>(palloc(sizeof(int32) * (*n > 0 ? *n : 1)));
  for (int i = 0; i < *n; ++i) out[i] = DatumGetInt32(items[i]);
  return out;
}

// A user's list (lambdas): the generic float8[] check's hint speaks of
// dptrain's internal arrays, so NULLs and nesting are refused here first.
const double* float8_list(ArrayType* a, int* n, const char* what) {
  if (ARR_NDIM(a) > 1 || (ARR_HASNULL(a) && array_contains_nulls(a)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s must be a one-dimensional array without NULLs", what),
                    errhint("E.g. lambdas => '{0.0001,0.001,0.01}'.")));
  if (ARR_NDIM(a) == 0) {
    *n = 0;
    return nullptr;
  }
  return dptrain::pg::float8_array_data(a, n, what);
}

// method => NULL: 'holdout' (today's Bolt-on Algorithm 3) where it applies,
// 'liu_talwar' for the algorithms accounted under add/remove-one (the DP-SGD
// family, DP-AGD), which Algorithm 3 does not cover.
bool choose_liu_talwar(const std::optional<std::string>& method, const std::string& algorithm) {
  if (!method) return dptrain::tuning::random_stopping_by_default(algorithm);
  if (*method == "liu_talwar") return true;
  if (*method == "holdout") return false;
  dptrain::fail(dptrain::ErrorKind::InvalidParameter, "unknown tuning method \"" + *method + "\"", {},
                "Use method => 'holdout' (Bolt-on Algorithm 3) or 'liu_talwar' (random stopping).");
}

// The holdout method's grid from `grid` jsonb: only lambda, epochs, batch_size.
void holdout_grid(const nlohmann::json& j, dptrain::tuning::Grid* g) {
  const dptrain::tuning::ParameterGrid p = dptrain::tuning::ParameterGrid::parse(j);
  for (const std::string& name : p.names())
    if (name != "lambda" && name != "epochs" && name != "batch_size")
      dptrain::fail(dptrain::ErrorKind::NotImplemented,
                    "method holdout tunes lambda, epochs and batch_size only, not \"" + name + "\"", {},
                    "Use method => 'liu_talwar' for a grid over other parameters.");
  const nlohmann::json lists = p.to_json();
  // Every value a number, epochs and batch sizes whole ones: get<int>() would
  // truncate 1.5 to 1, take true for 1 and overflow on 1e10 (the range
  // checks of the grid come after; liu_talwar's grid says the same).
  for (const auto& [name, values] : lists.items())
    for (const auto& v : values) {
      const bool whole = name != "lambda";
      if (!v.is_number() || (whole && !(v.get<double>() == std::floor(v.get<double>()) &&
                                        std::abs(v.get<double>()) <= 1e15)))
        dptrain::fail(dptrain::ErrorKind::InvalidParameter,
                      "grid value of \"" + name + "\" must be " + (whole ? "a whole number" : "a number"),
                      "Got " + v.dump() + ".", "E.g. {\"" + name + "\": " + (whole ? "[1, 5]" : "[0.001, 0.01]") + "}.");
    }
  if (lists.contains("lambda")) g->lambdas = lists.at("lambda").get<std::vector<double>>();
  if (lists.contains("epochs")) {
    g->epochs.clear();
    for (const auto& v : lists.at("epochs"))  // out of int's range: the grid check's 0 (refused)
      g->epochs.push_back(std::abs(v.get<double>()) <= 1e9 ? static_cast<int>(v.get<double>()) : 0);
  }
  if (lists.contains("batch_size")) {
    g->batch_sizes = lists.at("batch_size").get<std::vector<std::int64_t>>();
    g->batch_sizes_given = true;
  }
}

// Bolt-on Algorithm 3 on a Citus hash-distributed table (docs/tuning.md
// section 5): the run's split key kappa, then the rows of every (part,
// shard) counted where they are, with the reader's rights, before the charge.
// The counts are a function of the set of keys and kappa only.
void split_distributed_table(TuneSession* s) {
  double words[4];
  int parts = 0;
  DPT_CORE({
    s->split.emplace();
    s->split->key = dptrain::tuning::draw_split_key(s->config);
    const dptrain::sgd::EpochShuffleWords w = dptrain::sgd::epoch_key_to_words(s->split->key);
    for (int i = 0; i < 4; ++i) words[i] = w[i];
    parts = static_cast<int>(dptrain::tuning::expand(s->grid).size()) + 1;
  });
  const int64* rows = dptrain::pg::count_part_rows(s->relid, *s->ids, *s->prep, words, parts);
  const int shards = s->prep->nshards;
  DPT_CORE({
    s->split->rows.assign(static_cast<std::size_t>(parts), std::vector<std::int64_t>(static_cast<std::size_t>(shards)));
    for (int p = 0; p < parts; ++p)
      for (int sh = 0; sh < shards; ++sh) s->split->rows[p][sh] = rows[p * shards + sh];
  });
}

// begin_run's hook: every candidate's plan from the public facts, before the charge.
void plan_candidates(void* arg) {
  auto* s = static_cast<TuneSession*>(arg);
  if (!s->liu_talwar && s->config.distributed()) split_distributed_table(s);
  DPT_CORE({
    if (s->liu_talwar) {
      // With an intercept the candidates plan for the augmented rows (training/intercept.h).
      s->lt_tuner = std::make_unique<dptrain::tuning::LiuTalwarTuner>(dptrain::intercept::planned_config(s->config),
                                                                       *s->parameter_grid, s->gamma);
      s->run = s->lt_tuner.get();
    } else {
      s->tuner = std::make_unique<dptrain::tuning::Tuner>(dptrain::intercept::planned_config(s->config), s->grid,
                                                          std::move(s->split));
      s->run = s->tuner.get();
    }
  });
}

// dp_tune's arguments that must not be NULL (the others have no default or
// mean something when NULL).
void refuse_null_arguments(FunctionCallInfo fcinfo) {
  for (int i : {kSource, kLabel, kFeatures, kAlgorithm, kLoss, kHuberH, kAveraging, kReshuffle, kOptions})
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("argument %s of dp_tune must not be NULL", arg_name(i)),
                      errhint("Leave the argument out to use its default.")));
}

// The arguments of the search as given: the lists, `grid`, method and gamma.
struct GridArguments {
  // A list => NULL is the default (Grid{}): not given, so `grid` may replace it.
  bool lambdas_given = false, epochs_given = false;
  int nlambdas = 0, nepochs = 0, nbatches = 0;
  const double* lambdas = nullptr;
  const int32* epochs = nullptr;
  const int32* batches = nullptr;   // NULL: batch_sizes => NULL, the default rule (fit_default_batch)
  const char* grid_text = nullptr;  // NULL: no grid
  const char* method = nullptr;     // NULL: the algorithm's default
  bool has_gamma = false;
  double gamma = 0;
};

GridArguments read_grid_arguments(FunctionCallInfo fcinfo) {
  GridArguments a;
  a.lambdas_given = !PG_ARGISNULL(kLambdas);
  if (a.lambdas_given) a.lambdas = float8_list(PG_GETARG_ARRAYTYPE_P(kLambdas), &a.nlambdas, "lambdas");
  a.epochs_given = !PG_ARGISNULL(kEpochs);
  if (a.epochs_given) a.epochs = int4_array(PG_GETARG_ARRAYTYPE_P(kEpochs), &a.nepochs, "epochs");
  if (!PG_ARGISNULL(kBatchSizes)) a.batches = int4_array(PG_GETARG_ARRAYTYPE_P(kBatchSizes), &a.nbatches, "batch_sizes");
  a.grid_text = PG_ARGISNULL(kGrid) ? nullptr : DatumGetCString(DirectFunctionCall1(jsonb_out, PG_GETARG_DATUM(kGrid)));
  a.method = PG_ARGISNULL(kMethod) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(kMethod));
  a.has_gamma = !PG_ARGISNULL(kGamma);
  a.gamma = a.has_gamma ? PG_GETARG_FLOAT8(kGamma) : 0.0;
  return a;
}

// liu_talwar's grid: `grid`, or without it the lists lambdas, epochs,
// batch_sizes as its three entries. C++: call inside DPT_CORE.
void choose_liu_talwar_grid(const GridArguments& a, TuneSession* session) {
  const dptrain::tuning::Grid& g = session->grid;
  const nlohmann::json j = a.grid_text ? nlohmann::json::parse(a.grid_text)
                                       : nlohmann::json{{"lambda", g.lambdas}, {"epochs", g.epochs},
                                                        {"batch_size", g.batch_sizes}};
  session->parameter_grid = dptrain::tuning::ParameterGrid::parse(j);
  if (a.has_gamma) session->gamma = a.gamma;
  dptrain::tuning::check_liu_talwar(session->config, *session->parameter_grid, session->gamma);
}

// holdout's grid (Bolt-on Algorithm 3). C++: call inside DPT_CORE.
void choose_holdout_grid(const GridArguments& a, TuneSession* session) {
  const dptrain::TrainingConfig& c = session->config;
  if (a.has_gamma)
    dptrain::fail(dptrain::ErrorKind::InvalidParameter, "gamma applies to method liu_talwar only", {},
                  "Drop gamma, or pass method => 'liu_talwar'.");
  if (a.grid_text) holdout_grid(nlohmann::json::parse(a.grid_text), &session->grid);
  dptrain::tuning::check_tunable(c);
  // Algorithm 3's grid varies lambda, epochs and batch size only: the
  // shared arguments are every candidate's (liu_talwar checks each point).
  dptrain::make_algorithm(c.algorithm)->check_arguments(c);
  dptrain::tuning::expand(session->grid);
}

// Step 1: the arguments and the grid, checked before any data is read.
// C++: call inside DPT_CORE.
std::unique_ptr<TuneSession> new_tune_session(const dptrain::pg::RunArguments& args, const GridArguments& a) {
  auto session = std::make_unique<TuneSession>();
  dptrain::TrainingConfig& c = session->config;
  dptrain::pg::apply_run_arguments(args, &c);
  dptrain::tuning::Grid& g = session->grid;
  g.lambdas_given = a.lambdas_given;
  g.epochs_given = a.epochs_given;
  if (a.lambdas_given) g.lambdas.assign(a.lambdas, a.lambdas + a.nlambdas);
  if (a.epochs_given) g.epochs.assign(a.epochs, a.epochs + a.nepochs);
  if (a.batches) {
    g.batch_sizes.assign(a.batches, a.batches + a.nbatches);
    g.batch_sizes_given = true;
  }
  dptrain::validate_arguments(c);
  session->liu_talwar =
      choose_liu_talwar(a.method ? std::optional<std::string>(a.method) : std::nullopt, c.algorithm);
  if (a.grid_text && (g.lambdas_given || g.epochs_given || g.batch_sizes_given))
    dptrain::fail(dptrain::ErrorKind::InvalidParameter, "grid and the lists lambdas, epochs, batch_sizes exclude each other",
                  {}, "Put them into grid, e.g. grid => '{\"lambda\": [0.001], \"epochs\": [1, 5]}'.");
  if (session->liu_talwar)
    choose_liu_talwar_grid(a, session.get());
  else
    choose_holdout_grid(a, session.get());
  return session;
}

// The chosen candidate's parameters, as dp_tune returns them.
struct ChosenCandidate {
  int candidates = 0;
  double lambda = 0;
  int epochs = 0;
  int64 batch_size = 0;
};

// Step 5: the selection (exponential mechanism, or the best noisy score)
// into s->model and s->json. C++: call inside DPT_CORE.
ChosenCandidate release_chosen(TuneSession* s, bool caller_reads, double seconds) {
  s->model = dptrain::intercept::released_model(s->run->release(seconds), s->config);
  // A role without read access: the number of shards and parts, the largest
  // shard and the smallest part, not every size (docs/distributed.md 9.3).
  if (s->config.distributed() && !caller_reads) {
    dptrain::distributed::redact_shard_rows(s->model);
    dptrain::tuning::redact_part_rows(s->model);
  }
  // The search's time: a function of the candidates' data-dependent passes (as dp_train's).
  if (!caller_reads) s->model.details.erase("seconds");
  s->json = s->model.to_json().dump();
  ChosenCandidate chosen;
  if (s->liu_talwar) {
    const dptrain::TrainingConfig& k = s->lt_tuner->candidate_config(s->lt_tuner->chosen_point());
    chosen.candidates = static_cast<int>(s->lt_tuner->grid().size());
    chosen.lambda = k.lambda;
    chosen.epochs = k.epochs;
    chosen.batch_size = k.batch_size;
  } else {
    const dptrain::tuning::Candidate& k = s->tuner->candidate(s->tuner->chosen());
    chosen.candidates = s->tuner->candidates();
    chosen.lambda = k.lambda;
    chosen.epochs = k.epochs;
    chosen.batch_size = k.batch_size;
  }
  return chosen;
}

// dp_tune's result row.
HeapTuple tune_result(TupleDesc tupdesc, int64 id, const dptrain::Model& m, const ChosenCandidate& chosen,
                      const char* stored_details) {
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
  values[8] = Int32GetDatum(chosen.candidates);
  dptrain::pg::model_result_columns(m, stored_details, values + 9);
  return heap_form_tuple(tupdesc, values, nulls);
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_tune);

Datum dptrain_dp_tune(PG_FUNCTION_ARGS) {
  refuse_null_arguments(fcinfo);
  // Storing the chosen model needs a writable transaction: refused now, before any charge.
  const TupleDesc tupdesc = dptrain::pg::storing_call_row_type(fcinfo, "dp_tune");
  MemoryContext caller = CurrentMemoryContext;

  dptrain::pg::RunArguments args;
  // dp_tune(..., features => ARRAY['age', ...], bounds, categories, normalization): encoded_features.h
  const bool on_columns = PG_NARGS() == kColumnsArgCount;
  dptrain::pg::FeatureColumns columns;
  if (on_columns) dptrain::pg::read_feature_columns(fcinfo, kFeatures, kBounds, kCategories, kNormalization, &columns);
  dptrain::pg::read_run_arguments(fcinfo, {kLabel, on_columns ? -1 : kFeatures, kAlgorithm, kLoss, kEpsilon, kDelta, kLearningRate, kName,
                                           kSeed, kSchedule, kHuberH, kAveraging, kReshuffle, kRadius, kOptions,
                                           kIntercept},
                                  &args);
  const GridArguments grid = read_grid_arguments(fcinfo);

  // 1. Arguments and the grid, before any data is read.
  TuneSession* s = nullptr;
  DPT_CORE({ s = new_tune_session(args, grid).release(); });
  dptrain::pg::delete_on_reset(caller, s);

  // 2. Who may tune here, and the budget (the total epsilon and delta), before any data is read.
  SPI_connect();
  const Oid relid = PG_GETARG_OID(kSource);
  // 3. Public facts of the data, every candidate's plan from them (before the
  // charge), the charge of the total, and one random permutation of the data.
  // A Citus hash-distributed table is tuned in place, by the rule of
  // dp_train (begin_run: not with encoded columns): holdout's parts are a
  // keyed hash of the distribution column, counted before the charge
  // (plan_candidates) and read on the shards by every pass; liu_talwar's
  // candidates each train and are scored on the whole table on the shards,
  // as dp_train and dp_evaluate would. Every other table takes the shuffled copy.
  dptrain::pg::RunIdentities ids;
  dptrain::pg::PreparedData prep;
  dptrain::pg::ChargedContext charged;
  dptrain::pg::push_charged_context(&charged, &ids.charge, "dp_tune");
  if (on_columns) prep.columns = &columns;
  s->relid = relid;
  s->ids = &ids;
  s->prep = &prep;
  dptrain::pg::begin_run(fcinfo, relid, args.label, args.features, PG_ARGISNULL(kClasses) ? nullptr : PG_GETARG_ARRAYTYPE_P(kClasses),
                         args.name, &s->config, &ids, &prep,
                         dptrain::pg::InPlace::Distributed, plan_candidates, s);
  dptrain::pg::set_pass_source(prep, relid, &s->scratch);
  for (const std::string& w : s->run->warnings()) ereport(WARNING, (errmsg("%s", w.c_str())));

  // 4. holdout: the l + 1 disjoint parts, every candidate on its own part,
  // its released model scored on the held-out part; liu_talwar: random
  // candidates on the whole table, each scored with noise, until the coin
  // stops the search. Over the copy as the runner (the temp tables, the
  // passes and the counts are its); over a distributed table's shards as
  // the reader, in a security-restricted operation (pass_role, as dp_train).
  const TimestampTz start = GetCurrentTimestamp();
  dptrain::pg::drive_run_as_pass_role(s->run, ids, prep, &s->scratch);
  dptrain::pg::drop_run_tables_as_runner(ids, prep, s->scratch);

  // 5. The selection; the chosen model stored like dp_train's (the total
  // was charged in step 3).
  const double seconds = dptrain::pg::seconds_since(start);
  ChosenCandidate chosen;
  DPT_CORE({ chosen = release_chosen(s, ids.caller_reads, seconds); });
  // The released candidate's own release warnings (post-processing of it), as dp_train shows a run's.
  for (const std::string& w : s->run->release_warnings()) ereport(WARNING, (errmsg("%s", w.c_str())));
  // The details as stored (with an encoding: docs/encoding.md) are returned.
  char* stored_details = nullptr;
  const int64 id =
      dptrain::pg::store_model_json(s->json.c_str(), ids, relid, prep.source_name, &stored_details, prep.encoding);
  stored_details = MemoryContextStrdup(caller, stored_details);  // SPI_finish frees SPI's memory
  SPI_finish();
  dptrain::pg::pop_charged_context(&charged);

  PG_RETURN_DATUM(HeapTupleGetDatum(tune_result(tupdesc, id, s->model, chosen, stored_details)));
}

}  // extern "C"
