// The SQL functions of the training data (sql/): dptrain.training_prepare,
// training_reshuffle, training_drop and training_split (the CLI's controller
// and private tuning), and the per-row dptrain.intercept_row and
// dptrain.usable_row the copies call.
#include "training_data.h"

#include "core/sgd/epoch_state.h"
#include "core/training/intercept.h"
#include "intercept_rows.h"
#include "models.h"
#include "training_tables.h"

namespace {

// `step` on the prepared table named by argument 0, inside SPI.
void on_training_table(FunctionCallInfo fcinfo, void (*step)(const char*)) {
  char* name = text_to_cstring(PG_GETARG_TEXT_PP(0));
  SPI_connect();
  step(name);
  SPI_finish();
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_training_prepare);
PG_FUNCTION_INFO_V1(dptrain_training_reshuffle);
PG_FUNCTION_INFO_V1(dptrain_training_drop);
PG_FUNCTION_INFO_V1(dptrain_training_split);
PG_FUNCTION_INFO_V1(dptrain_usable_row);
PG_FUNCTION_INFO_V1(dptrain_intercept_row);

// dptrain.intercept_row(x float8[], bound float8, b float8) -> float8[]
// (STRICT): x scaled to norm <= bound, then b (training/intercept.h). A row
// the run cannot use (not one-dimensional, NULL elements) is returned as it
// is, to be refused (or, without read access, replaced) as without intercept.
Datum dptrain_intercept_row(PG_FUNCTION_ARGS) {
  ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
  const double bound = PG_GETARG_FLOAT8(1), b = PG_GETARG_FLOAT8(2);
  dptrain::pg::require_intercept_arguments(bound, b);
  if (ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != FLOAT8OID || (ARR_HASNULL(a) && array_contains_nulls(a)))
    PG_RETURN_ARRAYTYPE_P(a);
  const int d = ARR_DIMS(a)[0];
  double* out = static_cast<double*>(palloc(sizeof(double) * (d + 1)));
  DPT_CORE({ dptrain::intercept::augment_row(reinterpret_cast<const double*>(ARR_DATA_PTR(a)), d, bound, b, out); });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(out, d + 1));
}

// dptrain.usable_row(x float8[], y float8, dim int) -> boolean (STRICT: a
// NULL label or features is unusable): whether the epoch aggregate takes the
// row as it is (one-dimensional, dim values, no NULL, finite squared norm).
Datum dptrain_usable_row(PG_FUNCTION_ARGS) {
  ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
  const int dim = PG_GETARG_INT32(2);
  if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != dim || ARR_ELEMTYPE(a) != FLOAT8OID ||
      (ARR_HASNULL(a) && array_contains_nulls(a)))
    PG_RETURN_BOOL(false);
  const double* x = reinterpret_cast<const double*>(ARR_DATA_PTR(a));
  bool usable = false;
  DPT_CORE({ usable = dptrain::epoch_state::usable_features(x, dim); });
  PG_RETURN_BOOL(usable);
}

// dptrain.training_prepare(source regclass, label text, features text,
//                          classes text[], seed bigint)
//   -> (shuffled text, rows bigint, dim int, classes text[], classes_from_data bool, source text)
Datum dptrain_training_prepare(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("source, label and features must not be NULL"),
                    errhint("Name the table, its label column and its features column.")));
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "dptrain.training_prepare must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  dptrain::pg::PreparedData prepared;
  MemoryContext caller = CurrentMemoryContext;
  const dptrain::pg::RunIdentities ids = dptrain::pg::caller_identities();
  // Arguments 6 and 7 (feature_bound, intercept): the rows of a run with an
  // intercept, (x clipped to feature_bound, intercept) (training/intercept.h).
  dptrain::pg::read_intercept_arguments(fcinfo, 5, 6, &prepared);
  SPI_connect();
  dptrain::pg::prepare_training_data(PG_GETARG_OID(0), text_to_cstring(PG_GETARG_TEXT_PP(1)),
                                     text_to_cstring(PG_GETARG_TEXT_PP(2)),
                                     PG_ARGISNULL(3) ? nullptr : PG_GETARG_ARRAYTYPE_P(3), !PG_ARGISNULL(4),
                                     PG_ARGISNULL(4) ? 0 : PG_GETARG_INT64(4), ids, &prepared);
  MemoryContext old = MemoryContextSwitchTo(caller);
  Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * prepared.nclasses));
  for (int i = 0; i < prepared.nclasses; ++i) items[i] = CStringGetTextDatum(prepared.classes[i]);
  Datum values[6] = {CStringGetTextDatum(prepared.shuffled), Int64GetDatum(prepared.rows),
                     Int32GetDatum(prepared.dim),
                     PointerGetDatum(construct_array(items, prepared.nclasses, TEXTOID, -1, false, TYPALIGN_INT)),
                     BoolGetDatum(prepared.classes_from_data), CStringGetTextDatum(prepared.source_name)};
  bool nulls[6] = {false, false, false, false, false, false};
  HeapTuple tuple = heap_form_tuple(tupdesc, values, nulls);
  MemoryContextSwitchTo(old);
  SPI_finish();
  dptrain::pg::remember_prepared_source(PG_GETARG_OID(0));  // checked again by store_model
  PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}

Datum dptrain_training_reshuffle(PG_FUNCTION_ARGS) {
  on_training_table(fcinfo, dptrain::pg::reshuffle_training_data);
  PG_RETURN_VOID();
}

Datum dptrain_training_drop(PG_FUNCTION_ARGS) {
  on_training_table(fcinfo, dptrain::pg::drop_training_data);
  PG_RETURN_VOID();
}

// dptrain.training_split(shuffled text, parts int) -> SETOF (part int, shuffled text, rows bigint)
Datum dptrain_training_split(PG_FUNCTION_ARGS) {
  char* name = text_to_cstring(PG_GETARG_TEXT_PP(0));
  const int parts = PG_GETARG_INT32(1);
  if (parts < 1 || parts > 1000)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("parts must be between 1 and 1000"),
                    errhint("Split into 1 to 1000 parts.")));
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  InitMaterializedSRF(fcinfo, 0);
  int64* rows = static_cast<int64*>(palloc(sizeof(int64) * parts));
  SPI_connect();
  char** names = dptrain::pg::split_training_data(name, parts, rows);
  MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
  for (int p = 0; p < parts; ++p) {
    Datum values[3] = {Int32GetDatum(p), CStringGetTextDatum(names[p]), Int64GetDatum(rows[p])};
    bool nulls[3] = {false, false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  MemoryContextSwitchTo(old);
  SPI_finish();
  return (Datum) 0;
}

}  // extern "C"
