// dp_drop_model(model text) -> bigint: deletes one of the caller's own models.
//
// PUBLIC holds no DELETE on dptrain.models: a table-level DELETE (or UPDATE,
// TRUNCATE) privilege lets a role take any lock on the table
// (LOCK TABLE dptrain.models IN ACCESS EXCLUSIVE MODE), and one role holding
// that lock made every other role's dp_train wait after its charge -- charged,
// then cancelled by a timeout, with no model -- and stopped every dp_predict
// (found by the hostile review of 2026-11-27; test/regress/sql/model_lifecycle.sql).
// So the delete runs as the extension owner, limited to the caller's models by
// its own condition (created_by = the caller: GetUserId() on entry, this
// function being SECURITY INVOKER, as dp_train identifies its caller).
// Renaming keeps the column privilege UPDATE (name), which allows no LOCK.
#include "access.h"
#include "pg_glue.h"

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_drop_model);

Datum dptrain_dp_drop_model(PG_FUNCTION_ARGS) {
  using namespace dptrain::pg;
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("argument model of dp_drop_model must not be NULL"),
                    errhint("Pass the id or the name of one of your models; see SELECT id, name FROM dptrain.models "
                            "WHERE created_by = current_user.")));
  const Oid caller = GetUserId();
  SPI_connect();
  // The id of one of the caller's own models, with the caller's rights (the
  // same lookup and errors as dp_rename_model).
  Oid lookup_types[1] = {TEXTOID};
  Datum lookup_values[1] = {PG_GETARG_DATUM(0)};
  if (SPI_execute_with_args("SELECT dptrain.own_model_id($1)", 1, lookup_types, lookup_values, nullptr, true, 1) !=
          SPI_OK_SELECT ||
      SPI_processed != 1)
    elog(ERROR, "dptrain: looking up the model to drop failed");
  bool isnull;
  const int64 target = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
  NameData creator;
  namestrcpy(&creator, GetUserNameFromId(caller, false));
  Oid types[2] = {INT8OID, NAMEOID};
  Datum values[2] = {Int64GetDatum(target), NameGetDatum(&creator)};
  IdentitySwitch sw;
  switch_identity(&sw, function_owner(fcinfo), false);
  if (SPI_execute_with_args("DELETE FROM dptrain.models WHERE id = $1 AND created_by = $2", 2, types, values, nullptr,
                            false, 0) != SPI_OK_DELETE)
    elog(ERROR, "dptrain: deleting model %lld failed", static_cast<long long>(target));
  // dropped by a transaction that committed while the DELETE waited for the
  // row: not a success (test/isolation/specs/model_drop_race.spec)
  if (SPI_processed == 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                    errmsg("you have no model \"%s\"", text_to_cstring(PG_GETARG_TEXT_PP(0))),
                    errhint("It was dropped by another transaction while this call waited for it.")));
  restore_identity(&sw);
  SPI_finish();
  PG_RETURN_INT64(target);
}

}  // extern "C"
