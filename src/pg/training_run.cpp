#include "training_run.h"

extern "C" {
#include "storage/lmgr.h"
}

#include "core/algorithms/algorithm.h"
#include "core/engine/pass.h"
#include "core/sparse/support.h"
#include "core/training/defaults.h"
#include "core/training/intercept.h"
#include "distributed_source.h"
#include "shard_guard.h"
#include "encoded_features.h"
#include "feature_encodings.h"
#include "intercept_rows.h"
#include "local_source.h"
#include "ledger.h"
#include "models.h"
#include "pass_messages.h"
#include "phase_timing.h"
#include "training_columns.h"
#include "training_data.h"
#include "training_tables.h"
#include "writable_transaction.h"

namespace dptrain::pg {

void read_run_arguments(FunctionCallInfo fcinfo, const RunArgumentPositions& at, RunArguments* a) {
  auto string = [&](int i) -> const char* { return PG_ARGISNULL(i) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(i)); };
  auto real = [&](int i, bool* has, double* value) {
    *has = !PG_ARGISNULL(i);
    *value = *has ? PG_GETARG_FLOAT8(i) : 0.0;
  };
  a->label = string(at.label);
  a->features = at.features >= 0 ? string(at.features) : nullptr;  // -1: not a column name
  a->algorithm = string(at.algorithm);
  a->loss = string(at.loss);
  a->name = string(at.name);
  a->schedule = string(at.schedule);
  a->options = DatumGetCString(DirectFunctionCall1(jsonb_out, PG_GETARG_DATUM(at.options)));
  real(at.epsilon, &a->has_epsilon, &a->epsilon);
  real(at.delta, &a->has_delta, &a->delta);
  real(at.learning_rate, &a->has_learning_rate, &a->learning_rate);
  real(at.radius, &a->has_radius, &a->radius);
  a->has_seed = !PG_ARGISNULL(at.seed);
  a->seed = a->has_seed ? PG_GETARG_INT64(at.seed) : 0;
  a->huber_h = PG_GETARG_FLOAT8(at.huber_h);
  a->averaging = PG_GETARG_BOOL(at.averaging);
  a->reshuffle = PG_GETARG_BOOL(at.reshuffle);
  a->has_intercept = !PG_ARGISNULL(at.intercept);
  a->intercept = a->has_intercept && PG_GETARG_BOOL(at.intercept);
}

void apply_run_arguments(const RunArguments& a, dptrain::TrainingConfig* c) {
  c->loss = a.loss;
  if (a.has_epsilon) c->epsilon = a.epsilon;
  if (a.has_delta) c->delta = a.delta;
  // NULL (dp_train only): chosen from epsilon and delta (core/training/defaults.h)
  c->algorithm = a.algorithm ? std::string(a.algorithm) : dptrain::defaults::algorithm(*c);
  if (a.has_learning_rate) c->learning_rate = a.learning_rate;
  if (a.name) c->name = a.name;
  if (a.has_seed) c->seed = a.seed;
  if (a.schedule) c->schedule = std::string(a.schedule);
  c->huber_h = a.huber_h;
  c->averaging = a.averaging;
  c->reshuffle = a.reshuffle;
  // NULL: the algorithm's default (on for all but opdisc: docs/intercept.md)
  c->intercept = a.has_intercept ? a.intercept : dptrain::intercept::default_on(c->algorithm);
  if (a.has_radius) c->radius = a.radius;
  c->options = nlohmann::json::parse(a.options);
}

RunIdentities decide_access(FunctionCallInfo fcinfo, Oid relid, const char* label, const char* features,
                            const dptrain::TrainingConfig& c, const FeatureColumns* columns) {
  RunIdentities ids;
  ids.caller = GetUserId();
  ids.runner = function_owner(fcinfo);
  // The lock every read of the run would take, taken before the checks
  // below look at the relation (as PostgreSQL locks a relation before it
  // analyses a query on it): an owner's ALTER TABLE ... ENABLE ROW LEVEL
  // SECURITY that committed while the call waited for it is seen by the
  // check, and none can commit until the run's transaction ends
  // (test/isolation/specs/row_security_during_run.spec).
  LockRelationOid(relid, AccessShareLock);
  char* relname = require_training_relation(relid);
  require_schema_usage(relid, ids.caller);
  if (columns != nullptr) {
    ids.caller_reads = check_feature_columns(relid, relname, label, *columns, ids.caller);
  } else {
    const AttrNumber x = require_column(relid, relname, features, "features");
    const AttrNumber y = require_column(relid, relname, label, "label");
    ids.caller_reads = can_read_columns(relid, y, x, ids.caller);
  }
  ids.reader = ids.caller_reads ? ids.caller : relation_owner(relid);
  if (!ids.caller_reads && dptrain::stops_on_data(c))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("options.tolerance is not available without read access to \"%s\"", relname),
                    errdetail("It stops after a data-dependent number of epochs, which the privacy argument covers "
                              "only informally (Bolt-on §4.3)."),
                    errhint("Fix the number of epochs instead.")));
  double epsilon = c.epsilon.value_or(0), delta = c.delta.value_or(0);
  charged_amounts(c.algorithm, c.epsilon.has_value(), &epsilon, &delta);
  ledger_precheck(ids, relid, c.epsilon.has_value(), epsilon, c.delta.has_value() || delta > 0, delta,
                  c.seed.has_value());
  // (after the budget check: a role without a budget is told that first)
  if (!ids.caller_reads) refuse_owner_read_of_invoker_rules(relid, relname, ids.caller);
  return ids;
}

namespace {

// Enough for every PassKind (pass.h); a kind beyond it is simply not timed.
constexpr int kPassKinds = 16;

// Runs `sql` with $1 = `param` as float8[] and returns the float8[] of its
// single row (valid until SPI_freetuptable), its length in *len. With a
// snapshot: a pass over a table read in place (local_source.h); with `relid`
// only: a pass pushed down to the shards of distributed table `relid`
// (distributed_source.h). Both are checked to read `relid` and nothing else.
const double* run_array_query(const char* sql, const std::vector<double>& param, const char* what, int* len,
                              Snapshot snapshot = nullptr, Oid relid = InvalidOid) {
  Oid type[1] = {FLOAT8ARRAYOID};
  Datum value[1] = {PointerGetDatum(make_float8_array(param.data(), static_cast<int>(param.size())))};
  const int rc = snapshot                 ? execute_in_place_pass(sql, value[0], snapshot, relid)
                 : OidIsValid(relid) ? execute_distributed_pass(sql, value[0], relid)
                                     : SPI_execute_with_args(sql, 1, type, value, nullptr, false, 1);
  if (rc != SPI_OK_SELECT || SPI_processed != 1) elog(ERROR, "dptrain: %s query failed", what);
  bool isnull;
  const Datum result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
  if (isnull) elog(ERROR, "dptrain: the %s query saw no rows", what);
  return float8_array_data(DatumGetArrayTypeP(result), len, what);
}

// An encoded view whose categories were read from the data would hand a
// role without read access a model whose encoding reveals them (as classes
// read from the data would): refused before the charge.
void refuse_data_categories_without_read_access(Oid relid, const RunIdentities& ids) {
  if (ids.caller_reads) return;
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  const std::optional<std::string> encoding = registered_encoding(relid);
  restore_identity(&sw);
  if (encoding && encoding_reads_data(*encoding))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("the encoding of \"%s\" read categories from the data", get_rel_name(relid)),
                    errdetail("Training on it without read access would reveal them."),
                    errhint("Ask the owner to declare the categories (categories => ... in dp_encoded_view).")));
}

// schema.table, quoted as inspect_training_data records the source.
const char* qualified_name(Oid relid) {
  return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
}

// What the run will be charged, known from the public facts (NULL: nothing):
// a failed read of the source before the charge is charged this
// (reading_errors.h).
const RunCharge* pending_run_charge(Oid relid, const dptrain::TrainingConfig& c, bool charged) {
  if (!charged) return nullptr;
  return new (palloc(sizeof(RunCharge)))
      RunCharge(make_run_charge(relid, qualified_name(relid), c.algorithm, c.epsilon, c.delta, false));
}

// Where the passes read: a Citus table's shards, the source in place
// (dp_train only), or a copy -- without a shuffle when the order cannot
// matter (only dp_train may drop the random order: dp_tune's split deals
// out the rows of the random order).
void choose_where_to_read(Oid relid, const char* label, const char* features, const dptrain::TrainingConfig& c,
                          const RunIdentities& ids, InPlace where, bool in_place, PreparedData* prep) {
  const bool may_skip_shuffle = where == InPlace::Any;
  prep->distributed = false;
  prep->shuffled = nullptr;
  if (in_place) detect_distributed_source(relid, label, features, ids, prep);
  if (in_place && where == InPlace::Any && can_read_in_place(relid, label, features, c, ids, *prep))
    read_in_place(ids, prep);
  // A copy all the same (no read access, a view, row security, children,
  // encoded columns): without a shuffle when the order cannot matter.
  prep->unordered_copy =
      may_skip_shuffle && !prep->distributed && !prep->in_place && algorithm_is_order_free(c.algorithm);
}

// The public facts into the run's config. Algorithms, schedules and options
// that cannot run shard by shard are refused here when `checks_here`
// (dp_train's and dp_tune's hooks check their runs instead). C++: call inside
// DPT_CORE.
void record_public_facts(const PreparedData& prep, bool checks_here, dptrain::TrainingConfig* c) {
  c->source = prep.source_name;
  c->rows = prep.rows;
  c->dim = prep.dim;
  c->classes.assign(prep.classes, prep.classes + prep.nclasses);
  c->classes_from_data = prep.classes_from_data;
  c->read_in_place = prep.in_place;
  c->unordered_copy = prep.unordered_copy;
  if (prep.distributed) {
    c->shard_rows.assign(prep.shard_rows, prep.shard_rows + prep.nshards);
    c->distribution_column = prep.distribution_column;
    if (checks_here) dptrain::distributed::check(*c);
  }
}

// With an intercept the run reads the rows it plans for: (clip(x), b)
// (training/intercept.h), in the copy or, in place, through x_expr.
void plan_intercept_rows(const dptrain::TrainingConfig& c, PreparedData* prep) {
  if (!c.intercept) return;
  prep->intercept_bound = c.feature_bound;
  DPT_CORE({ prep->intercept = dptrain::intercept::constant_feature(c); });
  if (prep->reads_source()) prep->x_expr = with_intercept(prep->x_expr, prep);
}

}  // namespace

void begin_run(FunctionCallInfo fcinfo, Oid relid, const char* label, const char* features,
               ArrayType* declared_classes, const char* name, dptrain::TrainingConfig* c, RunIdentities* ids,
               PreparedData* prep, InPlace where, void (*before_charge)(void*), void* before_charge_arg) {
  PhaseClock clock;
  clock.start();
  bool in_place = where != InPlace::No;
  *ids = decide_access(fcinfo, relid, label, features, *c, prep->columns);
  clock.shown = ids->caller_reads;
  // Unknown / not implemented / arguments the plan would refuse: fail now,
  // before the charge below. dp_tune (before_charge) has checked every
  // candidate already: its grid may set what the shared arguments lack
  // (pfw's radius), so the shared arguments alone need not pass.
  // (dp_train's hook plans its one run from the facts: it still gets this first check.)
  const bool checks_here = before_charge == nullptr || where == InPlace::Any;
  if (checks_here) DPT_CORE({ dptrain::make_algorithm(c->algorithm)->check_arguments(*c); });
  // (dp_train: a step above 2/beta, bst14 without a radius, ... need no fact of the data either)
  if (checks_here && prep->run_arguments_final)
    DPT_CORE({ dptrain::make_algorithm(c->algorithm)->check_run_arguments(dptrain::intercept::planned_config(*c)); });
  check_model_name(name, *ids);
  if (prep->columns != nullptr) {
    // Bad declarations, and undeclared categories without read access, fail
    // here, before the charge.
    prep->encoding = build_run_encoding(relid, *prep->columns, *ids);
    prep->encoded_x = encoded_features_sql(prep->encoding, relid, !ids->caller_reads);
    in_place = false;
  }
  const bool charged = c->epsilon && !c->seed && c->algorithm != "none";
  ids->pending_charge = pending_run_charge(relid, *c, charged);
  inspect_training_data(relid, label, features, declared_classes, *ids, prep);
  clock.mark("validation");
  choose_where_to_read(relid, label, features, *c, *ids, where, in_place, prep);
  refuse_data_categories_without_read_access(relid, *ids);
  // Before the charge below: record_public_facts's shard-by-shard refusals
  // (dp_train's hook makes them itself, with the defaults from n and d).
  DPT_CORE({ record_public_facts(*prep, checks_here && before_charge == nullptr, c); });
  // Sparse features (docs/sparse.md): only runs whose every pass has a
  // sparse aggregate, refused before the charge below otherwise.
  if (prep->sparse) DPT_CORE({ dptrain::sparse::check(*c); });
  // The caller's plans from the public facts (dp_tune: every grid point's),
  // so that arguments only the facts refuse cost nothing either.
  if (before_charge) before_charge(before_charge_arg);
  // A private run is charged once the public facts are known and before its
  // rows are copied, committed on its own: whatever happens next (an error,
  // a cancel, a rollback after the model was seen), it is paid for.
  // (Algorithm "none" with an epsilon is refused by its plan: no charge.)
  if (charged)
    ids->charge = ledger_reserve(*ids, make_run_charge(relid, prep->source_name, c->algorithm, c->epsilon, c->delta,
                                                       false));
  ids->pending_charge = nullptr;
  plan_intercept_rows(*c, prep);
  clock.mark("charge");
  if (!prep->reads_source()) copy_training_data(*ids, c->seed.has_value(), c->seed.value_or(0), prep);
  clock.mark("shuffle");
  if (prep->classes_from_data && c->algorithm != "none")
    ereport(NOTICE, (errmsg("the classes were read from the data"),
                     errdetail("The list of classes is outside the privacy guarantee."),
                     errhint("Pass classes => ARRAY[...] to declare them.")));
}

TupleDesc storing_call_row_type(FunctionCallInfo fcinfo, const char* fn) {
  require_writable_transaction(fn);
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) elog(ERROR, "%s must return a row", fn);
  return BlessTupleDesc(tupdesc);
}

void model_result_columns(const dptrain::Model& m, const char* stored_details, Datum* out) {
  const int K = static_cast<int>(m.weights.rows()), d = static_cast<int>(m.weights.cols());
  ArrayType* weights = K == 1 ? make_float8_array(m.weights.data(), d) : make_float8_matrix(m.weights.data(), K, d);
  out[0] = PointerGetDatum(weights);
  out[1] = PointerGetDatum(make_text_array(m.classes.data(), static_cast<int>(m.classes.size())));
  out[2] = DirectFunctionCall1(jsonb_in, CStringGetDatum(stored_details));
}

Oid pass_role(const RunIdentities& ids, const PreparedData& prep) {
  return prep.reads_source() ? ids.reader : ids.runner;
}

void drive_run(dptrain::Run* run, const char* prepared, DriveScratch* scratch, bool show_data_dependent,
               const char* prefix) {
  // Work a run does inside the backend between passes (OPDisc's MIP solve)
  // polls the pending cancel/terminate flags; it never jumps (no
  // CHECK_FOR_INTERRUPTS inside C++ frames): it stops and throws, and the
  // glue's report() then lets PostgreSQL raise the cancel itself.
  DPT_CORE({ run->set_interrupt_check(cancel_pending); });
  double seconds[kPassKinds] = {};
  int statements[kPassKinds] = {};
  const bool in_place = scratch->source.has_value();
  // A local table read in place: every pass under one snapshot, parallel
  // allowed; a distributed one: one sequential run per shard.
  const Snapshot snapshot = in_place && scratch->local ? begin_in_place_passes() : nullptr;
  // The passes' parameter is the training state before noise (pass_messages.h).
  const bool hide = hide_pass_statements(show_data_dependent);
  const int guc_level = in_place && !scratch->local ? begin_distributed_passes(hide) : 0;
  const HiddenPasses hidden = hide ? hide_pass_statements_from_client() : HiddenPasses{};
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    bool more = false;
    DPT_CORE({
      std::optional<dptrain::Pass> p = run->next();
      more = p.has_value();
      if (more) {
        scratch->sql = in_place ? dptrain::distributed::pass_sql(*p, *scratch->source)
                                : dptrain::pass_sql(*p, dptrain::pass_table_name(*p, prepared));
        scratch->input = in_place ? dptrain::distributed::pass_input(*p) : std::move(p->input);
        if (p->kind == dptrain::PassKind::Split) scratch->parts = p->parts;
        scratch->kind = static_cast<int>(p->kind);
      }
    });
    if (!more) break;
    int len = 0;
    const TimestampTz started = GetCurrentTimestamp();
    const double* result = run_array_query(scratch->sql.c_str(), scratch->input, "pass", &len, snapshot,
                                           in_place ? scratch->relid : InvalidOid);
    if (scratch->kind >= 0 && scratch->kind < kPassKinds) {
      seconds[scratch->kind] += seconds_since(started);
      ++statements[scratch->kind];
    }
    DPT_CORE({
      run->accept(result, static_cast<std::size_t>(len));
      scratch->progress = run->take_progress();
    });
    SPI_freetuptable(SPI_tuptable);
    for (const dptrain::Progress& m : scratch->progress)
      if (show_data_dependent || !m.depends_on_data)
        ereport(NOTICE, (errmsg("dptrain: %s%s", prefix, m.message.c_str())));
  }
  if (snapshot) end_in_place_passes(snapshot);
  if (hidden.level) show_pass_statements_again(hidden);
  if (in_place && !scratch->local) end_distributed_passes(guc_level);
  // The number of passes is data-dependent for AMP and the optimum (their
  // optimizers stop on the data) and is no part of their release, and so is
  // their time: like their progress NOTICEs above, a caller without read
  // access gets neither (before, it got the passes' time, details.seconds
  // apart from the outside's noise; phase_timing.h).
  for (int k = 0; k < kPassKinds; ++k)
    if (statements[k] > 0 && show_data_dependent)
      elog(DEBUG1, "dptrain: phase passes %s: %.3f s (%d statements)",
           dptrain::pass_kind_name(static_cast<dptrain::PassKind>(k)), seconds[k], statements[k]);
}

dptrain::distributed::Source distributed_source(const PreparedData& prep) {
  // ONLY, so that a child attached during the run (ALTER TABLE ... INHERIT
  // needs no lock the run holds against it) is not read (the passes are
  // checked to read the table ONLY: statement_checks.h).
  // A distributed source: under the alias of every guarded read
  // (shard_guard.h), with its guard.
  if (prep.distributed)
    return {psprintf("ONLY %s AS %s", prep.source_name, kShardGuardAlias), prep.x_expr, prep.y_expr, prep.row_key,
            prep.shard_guard};
  return {psprintf("ONLY %s", prep.source_name), prep.x_expr, prep.y_expr, prep.row_key, ""};
}

void drop_run_tables(const char* prepared, const DriveScratch& scratch) {
  if (scratch.source) return;  // trained in place: nothing was copied
  for (int p = 1; p <= scratch.parts; ++p) drop_training_data(psprintf("%s_p%d", prepared, p));
  drop_training_data(prepared);
}

void set_pass_source(const PreparedData& prep, Oid relid, DriveScratch* scratch) {
  if (prep.reads_source()) DPT_CORE({ scratch->source = distributed_source(prep); });
  scratch->local = prep.in_place;
  scratch->relid = relid;
}

void drive_run_as_pass_role(dptrain::Run* run, const RunIdentities& ids, const PreparedData& prep,
                            DriveScratch* scratch) {
  IdentitySwitch as_pass_role;
  switch_identity(&as_pass_role, pass_role(ids, prep), prep.reads_source());
  drive_run(run, prep.shuffled, scratch, ids.caller_reads, "");
  restore_identity(&as_pass_role);
}

void drop_run_tables_as_runner(const RunIdentities& ids, const PreparedData& prep, const DriveScratch& scratch) {
  IdentitySwitch as_runner;
  switch_identity(&as_runner, ids.runner, false);
  drop_run_tables(prep.shuffled, scratch);
  restore_identity(&as_runner);
}

}  // namespace dptrain::pg
