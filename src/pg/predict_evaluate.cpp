// dp_predict (one row) and dp_evaluate (a table) for stored models, and the
// evaluation aggregate dp_evaluate runs: state = {rows, correct, loss_sum},
// combine = sum, so it runs under parallel workers.
#include "core/packed_model.h"
#include "models.h"

namespace pm = dptrain::packed_model;
using dptrain::pg::float8_array_data;

namespace {

// dp_predict's model, loaded on the first call of a query and kept for the
// others (keyed by the reference, in case it changes from row to row).
struct PredictCache {
  bool by_id;
  int64 id;
  char* reference;
  dptrain::pg::StoredModel model;
};

const dptrain::pg::StoredModel& predict_model(FunctionCallInfo fcinfo, bool by_id) {
  const int64 id = by_id ? PG_GETARG_INT64(0) : 0;
  const char* reference = by_id ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(0));
  auto* cache = static_cast<PredictCache*>(fcinfo->flinfo->fn_extra);
  if (cache == nullptr || cache->by_id != by_id || (by_id ? cache->id != id : strcmp(cache->reference, reference) != 0)) {
    cache = static_cast<PredictCache*>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PredictCache)));
    // dp_predict has no SET clause (it runs once per row): the path is
    // pinned here, around its only SQL.
    const int pinned = dptrain::pg::pin_search_path();
    SPI_connect();
    if (by_id) dptrain::pg::load_model_by_id(id, fcinfo->flinfo->fn_mcxt, &cache->model);
    else dptrain::pg::load_model(reference, fcinfo->flinfo->fn_mcxt, &cache->model);
    SPI_finish();
    dptrain::pg::unpin_search_path(pinned);
    cache->by_id = by_id;
    cache->id = id;
    cache->reference = by_id ? nullptr : MemoryContextStrdup(fcinfo->flinfo->fn_mcxt, reference);
    fcinfo->flinfo->fn_extra = cache;
  }
  return cache->model;
}

Datum predict(FunctionCallInfo fcinfo, bool by_id) {
  const dptrain::pg::StoredModel& model = predict_model(fcinfo, by_id);
  int len = 0;
  const double* x = float8_array_data(PG_GETARG_ARRAYTYPE_P(1), &len, "features");
  const double* p = reinterpret_cast<const double*>(ARR_DATA_PTR(model.packed));
  int index = 0;
  DPT_CORE({ index = pm::predict_index(p, x, len); });
  PG_RETURN_TEXT_P(cstring_to_text(model.classes[index]));
}

// The model argument of the evaluation aggregate, validated on every row: the
// check is O(1), and caching it by pointer is unsound (a row's detoasted copy
// may be allocated at the address of the previous row's).
const double* checked_packed(ArrayType* packed, int* len) {
  const double* p = float8_array_data(packed, len, "packed model");
  DPT_CORE({ pm::validate(p, static_cast<std::size_t>(*len)); });
  return p;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_predict);
PG_FUNCTION_INFO_V1(dptrain_dp_predict_id);
PG_FUNCTION_INFO_V1(dptrain_evaluate_transition);
PG_FUNCTION_INFO_V1(dptrain_evaluate_combine);
PG_FUNCTION_INFO_V1(dptrain_dp_evaluate);
PG_FUNCTION_INFO_V1(dptrain_dp_evaluate_id);

// dp_predict(model text, features float8[]) -> text (STRICT)
Datum dptrain_dp_predict(PG_FUNCTION_ARGS) { return predict(fcinfo, false); }

// dp_predict(model bigint, features float8[]) -> text (STRICT)
Datum dptrain_dp_predict_id(PG_FUNCTION_ARGS) { return predict(fcinfo, true); }

// evaluate_transition(state float8[], x float8[], label_index int, model float8[])
Datum dptrain_evaluate_transition(PG_FUNCTION_ARGS) {
  MemoryContext aggcontext;
  if (!AggCheckCallContext(fcinfo, &aggcontext))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("evaluate_transition must run as an aggregate"),
                    errhint("Use dp_evaluate.")));
  if (PG_ARGISNULL(3))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("model must not be NULL"),
                    errhint("Use dp_evaluate with a stored model.")));
  ArrayType* state;
  if (PG_ARGISNULL(0)) {
    const double zero[3] = {0, 0, 0};
    MemoryContext old = MemoryContextSwitchTo(aggcontext);
    state = dptrain::pg::make_float8_array(zero, 3);
    MemoryContextSwitchTo(old);
  } else {
    state = PG_GETARG_ARRAYTYPE_P(0);
    int slen = 0;
    float8_array_data(state, &slen, "evaluation state");
    if (slen != 3) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("malformed evaluation state"),
                                   errhint("The evaluation aggregate's state is {rows, correct, loss_sum}.")));
  }
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("feature array must not be NULL"),
                    errhint("Remove or repair rows with NULL features before evaluating.")));
  int len = 0, plen = 0;
  const double* x = float8_array_data(PG_GETARG_ARRAYTYPE_P(1), &len, "features");
  const double* p = checked_packed(PG_GETARG_ARRAYTYPE_P(3), &plen);
  const int label = PG_ARGISNULL(2) ? -1 : PG_GETARG_INT32(2);
  double* totals = reinterpret_cast<double*>(ARR_DATA_PTR(state));
  DPT_CORE({ pm::accumulate(p, x, len, label, totals); });
  PG_RETURN_ARRAYTYPE_P(state);
}

Datum dptrain_evaluate_combine(PG_FUNCTION_ARGS) {
  MemoryContext aggcontext;
  if (!AggCheckCallContext(fcinfo, &aggcontext))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("evaluate_combine must run as an aggregate"),
                    errhint("Use dp_evaluate.")));
  if (PG_ARGISNULL(1)) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
  }
  int blen = 0;
  const double* b = float8_array_data(PG_GETARG_ARRAYTYPE_P(1), &blen, "evaluation state");
  if (blen != 3) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("malformed evaluation state"),
                                   errhint("The evaluation aggregate's state is {rows, correct, loss_sum}.")));
  if (PG_ARGISNULL(0)) {
    MemoryContext old = MemoryContextSwitchTo(aggcontext);
    ArrayType* copy = dptrain::pg::make_float8_array(b, 3);
    MemoryContextSwitchTo(old);
    PG_RETURN_ARRAYTYPE_P(copy);
  }
  ArrayType* state = PG_GETARG_ARRAYTYPE_P(0);
  int alen = 0;
  double* a = const_cast<double*>(float8_array_data(state, &alen, "evaluation state"));
  if (alen != 3) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("malformed evaluation state"),
                                   errhint("The evaluation aggregate's state is {rows, correct, loss_sum}.")));
  for (int i = 0; i < 3; ++i) a[i] += b[i];
  PG_RETURN_ARRAYTYPE_P(state);
}

}  // extern "C"

namespace {

// dp_evaluate(model text | bigint, source regclass, label text, features text)
//   -> (accuracy float8, n bigint, loss float8)
Datum evaluate(FunctionCallInfo fcinfo, bool by_id) {
  for (int i = 0; i < 4; ++i)
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("dp_evaluate arguments must not be NULL"),
                      errhint("Pass the model, the table and its label and feature columns.")));
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) elog(ERROR, "dp_evaluate must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  const Oid relid = PG_GETARG_OID(1);
  const char* label = text_to_cstring(PG_GETARG_TEXT_PP(2));
  const char* features = text_to_cstring(PG_GETARG_TEXT_PP(3));
  char* relname = get_rel_name(relid);
  if (relname == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid),
                    errhint("Pass the table as a name, e.g. source => 'my_schema.my_table'.")));
  for (const char* column : {label, features})
    if (get_attnum(relid, column) == InvalidAttrNumber)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("column \"%s\" of relation \"%s\" does not exist", column, relname),
                      errhint("Pass the label and feature column names as they are spelled in the table.")));
  const char* qualified = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), relname);

  MemoryContext caller = CurrentMemoryContext;
  SPI_connect();
  dptrain::pg::StoredModel model;
  if (by_id) dptrain::pg::load_model_by_id(PG_GETARG_INT64(0), caller, &model);
  else dptrain::pg::load_model(text_to_cstring(PG_GETARG_TEXT_PP(0)), caller, &model);
  Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * model.nclasses));
  for (int i = 0; i < model.nclasses; ++i) items[i] = CStringGetTextDatum(model.classes[i]);
  ArrayType* classes = construct_array(items, model.nclasses, TEXTOID, -1, false, TYPALIGN_INT);

  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql,
                   "SELECT coalesce(s[1], 0)::int8, coalesce(s[2], 0), coalesce(s[3], 0), nulls FROM ("
                   "SELECT dptrain.evaluate_agg(%s::float8[], (array_position($1, %s::text) - 1)::int, $2) s, "
                   "count(*) FILTER (WHERE %s IS NULL) nulls FROM %s) q",
                   quote_identifier(features), quote_identifier(label), quote_identifier(label), qualified);
  Oid types[2] = {TEXTARRAYOID, FLOAT8ARRAYOID};
  Datum values[2] = {PointerGetDatum(classes), PointerGetDatum(model.packed)};
  if (SPI_execute_with_args(sql.data, 2, types, values, nullptr, true, 0) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: evaluation query failed");
  bool isnull;
  HeapTuple row = SPI_tuptable->vals[0];
  TupleDesc desc = SPI_tuptable->tupdesc;
  const int64 n = DatumGetInt64(SPI_getbinval(row, desc, 1, &isnull));
  const double correct = DatumGetFloat8(SPI_getbinval(row, desc, 2, &isnull));
  const double loss_sum = DatumGetFloat8(SPI_getbinval(row, desc, 3, &isnull));
  const int64 null_labels = DatumGetInt64(SPI_getbinval(row, desc, 4, &isnull));
  SPI_finish();
  if (null_labels > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("label column \"%s\" contains NULL values", label),
                    errhint("Remove rows with NULL labels before evaluating.")));
  if (n == 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("table \"%s\" has no rows to evaluate on", relname),
                    errhint("Evaluate on a table with at least one row.")));

  Datum out[3] = {Float8GetDatum(correct / static_cast<double>(n)), Int64GetDatum(n),
                  Float8GetDatum(loss_sum / static_cast<double>(n))};
  bool nulls[3] = {false, false, false};
  PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, out, nulls)));
}

}  // namespace

extern "C" {

Datum dptrain_dp_evaluate(PG_FUNCTION_ARGS) { return evaluate(fcinfo, false); }
Datum dptrain_dp_evaluate_id(PG_FUNCTION_ARGS) { return evaluate(fcinfo, true); }

}  // extern "C"
