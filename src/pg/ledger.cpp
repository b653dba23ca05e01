// dp_grant_budget / dp_revoke_budget / dp_budget_remaining, and the calls
// into the ledger functions of sql/40_ledger.sql. The SQL functions run as
// the extension owner; these C entry points first establish who the caller
// is (GetUserId() on entry: these functions are SECURITY INVOKER) and what it
// may do, since the SQL cannot tell the caller from the owner it runs as.
#include "ledger.h"

#include <cmath>

namespace dptrain::pg {
namespace {

Datum float8_or_null(bool has, double v, char* null_flag) {
  *null_flag = has ? ' ' : 'n';
  return has ? Float8GetDatum(v) : Datum(0);
}

bool run_check(const RunIdentities& ids, Oid relid, bool has_epsilon, double epsilon, bool has_delta, double delta,
               bool seeded, bool lock) {
  Oid types[7] = {REGCLASSOID, REGROLEOID, BOOLOID, FLOAT8OID, FLOAT8OID, BOOLOID, BOOLOID};
  char nulls[8] = "       ";
  Datum values[7] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(ids.caller), BoolGetDatum(ids.caller_reads),
                     float8_or_null(has_epsilon, epsilon, &nulls[3]), float8_or_null(has_delta, delta, &nulls[4]),
                     BoolGetDatum(seeded), BoolGetDatum(lock)};
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  if (SPI_execute_with_args("SELECT dptrain.ledger_check($1, $2, $3, $4, $5, $6, $7)", 7, types, values, nulls, false,
                            1) != SPI_OK_SELECT ||
      SPI_processed != 1)
    elog(ERROR, "dptrain: ledger check failed");
  restore_identity(&sw);
  bool isnull;
  return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

void require_owner(Oid relid, Oid caller, const char* what) {
  if (!pg_class_ownercheck(relid, caller))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("must be owner of table %s to %s", get_rel_name(relid), what),
                    errhint("Privacy budgets on a table are granted and revoked by its owner.")));
}

Oid require_role(const char* name) {
  const Oid role = get_role_oid(name, true);
  if (!OidIsValid(role))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("role \"%s\" does not exist", name),
                    errhint("Budgets are granted to an existing role (not PUBLIC).")));
  return role;
}

}  // namespace

bool ledger_precheck(const RunIdentities& ids, Oid relid, bool has_epsilon, double epsilon, bool has_delta,
                     double delta, bool seeded) {
  return run_check(ids, relid, has_epsilon, epsilon, has_delta, delta, seeded, false);
}

void ledger_charge(const RunIdentities& ids, const RunCharge& run, int64 model_id) {
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
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  if (SPI_execute_with_args("SELECT dptrain.ledger_charge($1, $2, $3, $4, $5, $6, $7, $8, $9)", 9, types, values,
                            nulls, false, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: ledger charge failed");
  restore_identity(&sw);
}

}  // namespace dptrain::pg

using namespace dptrain::pg;

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_grant_budget);
PG_FUNCTION_INFO_V1(dptrain_dp_revoke_budget);
PG_FUNCTION_INFO_V1(dptrain_dp_budget_remaining);

// dp_grant_budget(source regclass, role name, epsilon float8, delta float8 DEFAULT 0)
Datum dptrain_dp_grant_budget(PG_FUNCTION_ARGS) {
  static const char* names[] = {"source", "role", "epsilon", "delta"};
  for (int i = 0; i < 4; ++i)
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("argument %s of dp_grant_budget must not be NULL", names[i]),
                      errhint("Use dp_revoke_budget to remove a budget; delta => 0 grants pure epsilon-DP only.")));
  const Oid caller = GetUserId();
  const Oid relid = PG_GETARG_OID(0);
  const char* relname = require_training_relation(relid);
  const Oid role = require_role(NameStr(*PG_GETARG_NAME(1)));
  const double epsilon = PG_GETARG_FLOAT8(2), delta = PG_GETARG_FLOAT8(3);
  if (!(std::isfinite(epsilon) && epsilon > 0))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("budget epsilon must be a positive finite number"),
                    errhint("To take a budget away use dp_revoke_budget.")));
  if (!(std::isfinite(delta) && delta >= 0 && delta < 1))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("budget delta must be in [0, 1)"),
                    errhint("Use delta => 0 to allow pure epsilon-DP runs only; typically delta is far below 1/n.")));
  require_owner(relid, caller, "grant a privacy budget on it");
  if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("cannot grant a privacy budget on temporary table \"%s\"", relname),
                    errhint("Temporary tables are visible to their own session only.")));

  SPI_connect();
  Oid types[5] = {REGCLASSOID, REGROLEOID, FLOAT8OID, FLOAT8OID, REGROLEOID};
  Datum values[5] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role), Float8GetDatum(epsilon), Float8GetDatum(delta),
                     ObjectIdGetDatum(caller)};
  IdentitySwitch sw;
  switch_identity(&sw, function_owner(fcinfo), false);
  if (SPI_execute_with_args("SELECT dptrain.ledger_grant($1, $2, $3, $4, $5)", 5, types, values, nullptr, false, 0) !=
      SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not grant the budget");
  restore_identity(&sw);
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
  IdentitySwitch sw;
  switch_identity(&sw, function_owner(fcinfo), false);
  if (SPI_execute_with_args("DELETE FROM dptrain.budgets WHERE source = $1 AND role = $2", 2, types, values, nullptr,
                            false, 0) != SPI_OK_DELETE)
    elog(ERROR, "dptrain: could not revoke the budget");
  restore_identity(&sw);
  const bool revoked = SPI_processed > 0;
  SPI_finish();
  PG_RETURN_BOOL(revoked);
}

// dp_budget_remaining(source regclass, role name DEFAULT NULL) -> (epsilon, delta)
Datum dptrain_dp_budget_remaining(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("source must not be NULL"),
                    errhint("Pass the table the budget was granted on.")));
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "dp_budget_remaining must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  const Oid caller = GetUserId();
  const Oid relid = PG_GETARG_OID(0);
  require_training_relation(relid);
  const Oid role = PG_ARGISNULL(1) ? caller : require_role(NameStr(*PG_GETARG_NAME(1)));
  if (!has_privs_of_role(caller, role) && !pg_class_ownercheck(relid, caller))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("permission denied to see the privacy budget of role \"%s\"", GetUserNameFromId(role, false)),
                    errhint("A budget is visible to its role and to the owner of the table.")));
  MemoryContext caller_context = CurrentMemoryContext;
  SPI_connect();
  Oid types[2] = {REGCLASSOID, REGROLEOID};
  Datum args[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role)};
  IdentitySwitch sw;
  switch_identity(&sw, function_owner(fcinfo), false);
  if (SPI_execute_with_args("SELECT greatest(epsilon - spent_epsilon, 0)::float8, greatest(delta - spent_delta, 0)::float8 "
                            "FROM dptrain.budgets WHERE source = $1 AND role = $2",
                            2, types, args, nullptr, true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read the budget");
  restore_identity(&sw);
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
  PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}

}  // extern "C"
