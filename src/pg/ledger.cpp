// dp_grant_budget / dp_revoke_budget / dp_budget_remaining,
// dp_set_table_budget / dp_table_budget_remaining, and the calls into the
// ledger functions of sql/40_ledger.sql. The SQL functions run as the
// extension owner; these C entry points first establish who the caller is
// (GetUserId() on entry: these functions are SECURITY INVOKER) and what it
// may do, since the SQL cannot tell the caller from the owner it runs as.
#include "ledger.h"

#include <cmath>

#include "charge_worker.h"
#include "core/algorithms/ledger_charge.h"
#include "pg_glue.h"

namespace dptrain::pg {
namespace {

Datum float8_or_null(bool has, double v, char* null_flag) {
  *null_flag = has ? ' ' : 'n';
  return has ? Float8GetDatum(v) : Datum(0);
}

void require_owner(Oid relid, Oid caller, const char* what) {
  if (!pg_class_ownercheck(relid, caller))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("must be owner of table %s to %s", get_rel_name(relid), what),
                    errhint("Privacy budgets on a table are granted, capped and revoked by its owner.")));
}

Oid require_role(const char* name) {
  const Oid role = get_role_oid(name, true);
  if (!OidIsValid(role))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("role \"%s\" does not exist", name),
                    errhint("Budgets are granted to an existing role (not PUBLIC).")));
  return role;
}

// A budget's epsilon: positive, finite and not subnormal; delta: 0 or normal, below 1.
void check_budget_amounts(const char* what, double epsilon, double delta, const char* hint) {
  if (!(std::isnormal(epsilon) && epsilon > 0))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s epsilon must be a positive finite number", what),
                    std::isfinite(epsilon) && epsilon > 0 ? errdetail("%g is subnormal.", epsilon) : 0,
                    errhint("%s", hint)));
  if (!(delta == 0 || (std::isnormal(delta) && delta > 0 && delta < 1)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s delta must be in [0, 1)", what),
                    std::isfinite(delta) && delta > 0 && delta < 1 ? errdetail("%g is subnormal.", delta) : 0,
                    errhint("Use delta => 0 to allow pure epsilon-DP runs only; typically delta is far below 1/n.")));
  // The budget tables keep amounts as numeric, which a float8 becomes with 15
  // significant digits: a delta within 5e-16 of 1 (0.9999999999999999) is
  // stored as 1, and the table's CHECK refused it (23514, no hint).
  char digits[32];
  snprintf(digits, sizeof(digits), "%.15g", delta);
  if (strtod(digits, nullptr) >= 1)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s delta must be in [0, 1)", what),
                    errdetail("%.17g is 1 to the 15 significant digits the ledger keeps.", delta),
                    errhint("Use delta => 0 to allow pure epsilon-DP runs only; typically delta is far below 1/n.")));
}

// Runs `sql` with `values` as the extension owner (the caller of the C
// function was identified already); expects `expected` from SPI.
void run_as(Oid runner, const char* sql, int nargs, Oid* types, Datum* values, const char* nulls, bool read_only,
            int expected) {
  IdentitySwitch sw;
  switch_identity(&sw, runner, false);
  if (SPI_execute_with_args(sql, nargs, types, values, nulls, read_only, 0) != expected)
    elog(ERROR, "dptrain: ledger query failed: %s", sql);
  restore_identity(&sw);
}

}  // namespace

bool ledger_precheck(const RunIdentities& ids, Oid relid, bool has_epsilon, double epsilon, bool has_delta,
                     double delta, bool seeded) {
  Oid types[7] = {REGCLASSOID, REGROLEOID, BOOLOID, FLOAT8OID, FLOAT8OID, BOOLOID, BOOLOID};
  char nulls[8] = "       ";
  Datum values[7] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(ids.caller), BoolGetDatum(ids.caller_reads),
                     float8_or_null(has_epsilon, epsilon, &nulls[3]), float8_or_null(has_delta, delta, &nulls[4]),
                     BoolGetDatum(seeded), BoolGetDatum(false)};
  run_as(ids.runner, "SELECT budgeted FROM dptrain.ledger_check($1, $2, $3, $4, $5, $6, $7)", 7, types, values,
         nulls, false, SPI_OK_SELECT);
  bool isnull;
  return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

void charged_amounts(const std::string& algorithm, bool has_epsilon, double* epsilon, double* delta) {
  if (!has_epsilon || !std::isfinite(*epsilon) || *epsilon < 0 || !(*delta >= 0 && *delta < 1)) return;
  DPT_CORE({
    const dptrain::LedgerCharge c = dptrain::ledger_charge(algorithm, *epsilon, *delta);
    *epsilon = c.epsilon;
    *delta = c.delta;
  });
}

RunCharge make_run_charge(Oid relid, const char* source_name, const std::string& algorithm,
                          const std::optional<double>& epsilon, const std::optional<double>& delta, bool seeded) {
  RunCharge run;
  run.relid = relid;
  run.source_name = source_name;
  run.algorithm = pstrdup(algorithm.c_str());
  run.has_epsilon = epsilon.has_value();
  run.epsilon = epsilon.value_or(0);
  run.has_delta = delta.has_value();
  run.delta = delta.value_or(0);
  run.seeded = seeded;
  charged_amounts(algorithm, run.has_epsilon, &run.epsilon, &run.delta);
  run.has_delta = run.has_delta || run.delta > 0;
  return run;
}

Charge ledger_reserve(const RunIdentities& ids, const RunCharge& run) {
  DurableCharge c;
  c.runner = ids.runner;
  c.relid = run.relid;
  c.source_name = run.source_name;
  c.role = ids.caller;
  c.reader = ids.caller_reads;
  c.algorithm = run.algorithm;
  c.epsilon = run.epsilon;
  c.delta = run.has_delta ? run.delta : 0.0;
  Charge charge;
  charge.model_id = charge_durably(c);
  charge.epsilon = c.epsilon;
  charge.delta = c.delta;
  return charge;
}

void require_within_charge(const Charge& charge, const RunCharge& run) {
  const double delta = run.has_delta ? run.delta : 0.0;
  if (!is_private(run) || run.epsilon > charge.epsilon || delta > charge.delta)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("the model spends more privacy than its run was charged"),
                    errdetail("Charged epsilon = %g, delta = %g; the model has epsilon = %g, delta = %g.",
                              charge.epsilon, charge.delta, run.epsilon, delta),
                    errhint("This is a bug in dptrain; nothing was released. Please report it with the server log.")));
}

void ledger_log(const RunIdentities& ids, const RunCharge& run, int64 model_id) {
  Oid types[9] = {REGCLASSOID, TEXTOID, REGROLEOID, BOOLOID, INT8OID, TEXTOID, FLOAT8OID, FLOAT8OID, BOOLOID};
  char nulls[10] = "         ";
  Datum values[9] = {ObjectIdGetDatum(run.relid),
                     CStringGetTextDatum(run.source_name),
                     ObjectIdGetDatum(ids.caller),
                     BoolGetDatum(ids.caller_reads),
                     Int64GetDatum(model_id),
                     CStringGetTextDatum(run.algorithm),
                     float8_or_null(run.has_epsilon, run.epsilon, &nulls[6]),
                     float8_or_null(run.has_delta, run.delta, &nulls[7]),
                     BoolGetDatum(run.seeded)};
  run_as(ids.runner, "SELECT dptrain.ledger_log($1, $2, $3, $4, $5, $6, $7, $8, $9)", 9, types, values, nulls,
         false, SPI_OK_SELECT);
}

}  // namespace dptrain::pg

using namespace dptrain::pg;

namespace {

// The (epsilon, delta) left of a budget or cap, as a row of NULLs if there
// is none: `sql` selects the amounts with $1 = relid, $2 = role (unused by caps).
Datum remaining_row(FunctionCallInfo fcinfo, const char* sql, Oid relid, Oid role) {
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) elog(ERROR, "must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  MemoryContext caller_context = CurrentMemoryContext;
  SPI_connect();
  Oid types[2] = {REGCLASSOID, REGROLEOID};
  Datum args[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role)};
  run_as(function_owner(fcinfo), sql, 2, types, args, nullptr, true, SPI_OK_SELECT);
  Datum values[2] = {0, 0};
  bool nulls[2] = {true, true};
  if (SPI_processed == 1) {
    values[0] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &nulls[0]);
    values[1] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &nulls[1]);
  }
  MemoryContext old = MemoryContextSwitchTo(caller_context);
  HeapTuple tuple = heap_form_tuple(tupdesc, values, nulls);
  MemoryContextSwitchTo(old);
  SPI_finish();
  return HeapTupleGetDatum(tuple);
}

void require_arguments(FunctionCallInfo fcinfo, const char* function, const char* const* names, int n,
                       const char* hint) {
  for (int i = 0; i < n; ++i)
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("argument %s of %s must not be NULL", names[i], function), errhint("%s", hint)));
}

void refuse_temporary(Oid relid, const char* relname, const char* what) {
  if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("cannot %s on temporary table \"%s\"", what, relname),
                    errhint("Temporary tables are visible to their own session only.")));
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_grant_budget);
PG_FUNCTION_INFO_V1(dptrain_dp_revoke_budget);
PG_FUNCTION_INFO_V1(dptrain_dp_budget_remaining);
PG_FUNCTION_INFO_V1(dptrain_dp_set_table_budget);
PG_FUNCTION_INFO_V1(dptrain_dp_table_budget_remaining);

// dp_grant_budget(source regclass, role name, epsilon float8, delta float8 DEFAULT 0)
Datum dptrain_dp_grant_budget(PG_FUNCTION_ARGS) {
  static const char* names[] = {"source", "role", "epsilon", "delta"};
  require_arguments(fcinfo, "dp_grant_budget", names, 4,
                    "Use dp_revoke_budget to remove a budget; delta => 0 grants pure epsilon-DP only.");
  const Oid caller = GetUserId();
  const Oid relid = PG_GETARG_OID(0);
  const char* relname = require_training_relation(relid);
  const Oid role = require_role(NameStr(*PG_GETARG_NAME(1)));
  const double epsilon = PG_GETARG_FLOAT8(2), delta = PG_GETARG_FLOAT8(3);
  check_budget_amounts("budget", epsilon, delta, "To take a budget away use dp_revoke_budget.");
  require_owner(relid, caller, "grant a privacy budget on it");
  refuse_temporary(relid, relname, "grant a privacy budget");
  SPI_connect();
  Oid types[5] = {REGCLASSOID, REGROLEOID, FLOAT8OID, FLOAT8OID, REGROLEOID};
  Datum values[5] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role), Float8GetDatum(epsilon), Float8GetDatum(delta),
                     ObjectIdGetDatum(caller)};
  run_as(function_owner(fcinfo), "SELECT dptrain.ledger_grant($1, $2, $3, $4, $5)", 5, types, values, nullptr, false,
         SPI_OK_SELECT);
  SPI_finish();
  PG_RETURN_VOID();
}

// dp_revoke_budget(source regclass, role name) -> boolean (STRICT)
Datum dptrain_dp_revoke_budget(PG_FUNCTION_ARGS) {
  const Oid caller = GetUserId();
  const Oid relid = PG_GETARG_OID(0);
  require_training_relation(relid);
  const Oid role = require_role(NameStr(*PG_GETARG_NAME(1)));
  require_owner(relid, caller, "revoke a privacy budget on it");
  SPI_connect();
  Oid types[2] = {REGCLASSOID, REGROLEOID};
  Datum values[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role)};
  // the charges' lock first, as dp_grant_budget takes it (dptrain.ledger_grant)
  run_as(function_owner(fcinfo), "SELECT dptrain.lock_source($1)", 1, types, values, nullptr, false, SPI_OK_SELECT);
  run_as(function_owner(fcinfo), "DELETE FROM dptrain.budgets WHERE source = $1 AND role = $2", 2, types, values,
         nullptr, false, SPI_OK_DELETE);
  const bool revoked = SPI_processed > 0;
  SPI_finish();
  PG_RETURN_BOOL(revoked);
}

// dp_budget_remaining(source regclass, role name DEFAULT NULL) -> (epsilon, delta)
Datum dptrain_dp_budget_remaining(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("source must not be NULL"),
                    errhint("Pass the table the budget was granted on.")));
  const Oid caller = GetUserId();
  const Oid relid = PG_GETARG_OID(0);
  require_training_relation(relid);
  const Oid role = PG_ARGISNULL(1) ? caller : require_role(NameStr(*PG_GETARG_NAME(1)));
  if (!has_privs_of_role(caller, role) && !pg_class_ownercheck(relid, caller))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("permission denied to see the privacy budget of role \"%s\"", GetUserNameFromId(role, false)),
                    errhint("A budget is visible to its role and to the owner of the table.")));
  PG_RETURN_DATUM(remaining_row(fcinfo,
                                "SELECT greatest(epsilon - spent_epsilon, 0)::float8, "
                                "greatest(delta - spent_delta, 0)::float8 "
                                "FROM dptrain.budgets WHERE source = $1 AND role = $2",
                                relid, role));
}

// dp_set_table_budget(source regclass, epsilon float8, delta float8 DEFAULT 0)
Datum dptrain_dp_set_table_budget(PG_FUNCTION_ARGS) {
  static const char* names[] = {"source", "epsilon", "delta"};
  require_arguments(fcinfo, "dp_set_table_budget", names, 3, "delta => 0 allows pure epsilon-DP runs only.");
  const Oid caller = GetUserId();
  const Oid relid = PG_GETARG_OID(0);
  const char* relname = require_training_relation(relid);
  const double epsilon = PG_GETARG_FLOAT8(1), delta = PG_GETARG_FLOAT8(2);
  check_budget_amounts("table budget", epsilon, delta, "The cap bounds the total privacy loss of the table.");
  require_owner(relid, caller, "cap its privacy budget");
  refuse_temporary(relid, relname, "cap the privacy budget");
  SPI_connect();
  Oid types[4] = {REGCLASSOID, FLOAT8OID, FLOAT8OID, REGROLEOID};
  Datum values[4] = {ObjectIdGetDatum(relid), Float8GetDatum(epsilon), Float8GetDatum(delta),
                     ObjectIdGetDatum(caller)};
  run_as(function_owner(fcinfo), "SELECT dptrain.ledger_set_cap($1, $2, $3, $4)", 4, types, values, nullptr, false,
         SPI_OK_SELECT);
  SPI_finish();
  PG_RETURN_VOID();
}

// dp_table_budget_remaining(source regclass) -> (epsilon, delta): for the
// owner, roles that may read the table, and roles with a budget on it.
Datum dptrain_dp_table_budget_remaining(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("source must not be NULL"),
                    errhint("Pass the table whose cap you want to see.")));
  const Oid caller = GetUserId();
  const Oid relid = PG_GETARG_OID(0);
  require_training_relation(relid);
  bool visible = pg_class_ownercheck(relid, caller) || can_read_any_column(relid, caller);
  if (!visible) {
    SPI_connect();
    Oid types[2] = {REGCLASSOID, REGROLEOID};
    Datum args[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(caller)};
    run_as(function_owner(fcinfo),
           "SELECT 1 FROM dptrain.budgets WHERE source = $1 AND pg_catalog.pg_has_role($2, role, 'USAGE')", 2, types,
           args, nullptr, true, SPI_OK_SELECT);
    visible = SPI_processed > 0;
    SPI_finish();
  }
  if (!visible)
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("permission denied to see the privacy budget of table \"%s\"", get_rel_name(relid)),
                    errhint("A table's cap is visible to its owner, its readers and the roles with a budget on it.")));
  PG_RETURN_DATUM(remaining_row(fcinfo,
                                "SELECT greatest(epsilon - spent_epsilon, 0)::float8, "
                                "greatest(delta - spent_delta, 0)::float8 "
                                "FROM dptrain.table_budgets WHERE source = $1 AND $2 IS NOT NULL",
                                relid, caller));
}

}  // extern "C"
