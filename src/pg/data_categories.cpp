// dptrain.distinct_text_values(source regclass, col text, max_values int4)
//   -> text[] (STRICT, SECURITY INVOKER): up to max_values distinct non-NULL
// values of column `col` of `source` as text, sorted; NULL without any. The
// categories dp_encoding reads from the data when none were declared
// (docs/encoding.md): with the caller's rights, so it shows a role only what
// SELECT DISTINCT would. In C rather than PL/pgSQL's EXECUTE format('... %s',
// source) because the statement names the relation by text and must be
// checked to read that relation before it runs (statement_checks.h: a
// schema renamed meanwhile could put someone's view under the name, whose
// functions would run as the caller).
#include "pg_glue.h"
#include "shard_guard.h"
#include "statement_checks.h"

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_distinct_text_values);

Datum dptrain_distinct_text_values(PG_FUNCTION_ARGS) {
  const Oid relid = PG_GETARG_OID(0);
  const char* column = text_to_cstring(PG_GETARG_TEXT_PP(1));
  const int32 max_values = PG_GETARG_INT32(2);
  const char* relname = get_rel_name(relid);
  if (relname == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid),
                    errhint("Pass the table as a name, e.g. 'my_schema.my_table'.")));
  const AttrNumber attnum = get_attnum(relid, column);
  if (attnum == InvalidAttrNumber || attnum < 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("column \"%s\" of relation \"%s\" does not exist", column, relname),
                    errhint("Pass the column's name as it is spelled in the table, without quotes.")));
  if (max_values < 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("max_values must not be negative"),
                    errhint("Pass 0 or more.")));
  const char* col = quote_identifier(column);
  SPI_connect();
  // The relation's name, or a Citus table's guarded read of its shards
  // (shard_guard.h).
  const char* sql = psprintf(
      "SELECT pg_catalog.array_agg(v ORDER BY v) FROM (SELECT DISTINCT %s::pg_catalog.text AS v FROM %s "
      "WHERE %s IS NOT NULL LIMIT $1) d",
      col, dptrain::pg::guarded_source_sql(relid), col);
  Oid types[1] = {INT4OID};
  Datum values[1] = {Int32GetDatum(max_values)};
  dptrain::pg::SourceRead source;
  source.source = relid;
  source.what = "the relation to encode";
  if (dptrain::pg::execute_checked(sql, 1, types, values, true, 0, source) != SPI_OK_SELECT || SPI_processed != 1)
    elog(ERROR, "dptrain: could not read the values of column \"%s\"", column);
  bool isnull;
  Datum result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
  if (!isnull) result = SPI_datumTransfer(result, false, -1);
  SPI_finish();
  if (isnull) PG_RETURN_NULL();
  PG_RETURN_DATUM(result);
}

}  // extern "C"
