// The controller's (`dptrain train`, controller/lib/remote_training.h) way to
// read a table in place, as dp_train does (local_source.h; docs/performance.md,
// "Reading in place"):
//
//   dptrain.training_prepare_run(source, label, features, algorithm, classes,
//                                seed, feature_bound, intercept)
//     validates the rows as dptrain.training_prepare does, then either
//     returns the SQL to read the source in place (the relation as ONLY
//     schema.table, its OID and the row expressions dp_train's passes use),
//     or copies the rows as dp_train would for that algorithm (shuffled, or
//     in the table's order for an order-free run);
//   dptrain.training_in_place_pass(source, pass, input)
//     runs one pass statement over the source, after checking that the
//     statement as parsed reads that relation and nothing else (its name is
//     resolved again on every pass: local_source.cpp), read-only, parallel
//     allowed, under the transaction's snapshot.
//
// Both need a REPEATABLE READ transaction for the in-place reading: every
// statement of the transaction, the validation's count included, then sees
// one snapshot, so every pass sums over the same n rows (and the run checks
// that it saw n). In a READ COMMITTED transaction the first function copies
// and the second refuses. Everything runs with the caller's own rights, as
// dptrain.training_prepare does (the controller needs SELECT on the data and
// EXECUTE on the aggregates anyway).
#include "models.h"
#include "core/algorithms/algorithm.h"
#include "distributed_source.h"
#include "intercept_rows.h"
#include "local_source.h"
#include "training_data.h"

extern "C" {
#include "access/xact.h"
}

namespace {

// The columns of dptrain.training_prepare_run's result row.
enum Column { kShuffled, kSourceSql, kSourceOid, kX, kY, kRows, kDim, kClasses, kFromData, kSourceName, kRead, kColumns };

Datum text_or_null(const char* s, bool* isnull) {
  *isnull = s == nullptr;
  return s ? CStringGetTextDatum(s) : (Datum) 0;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_training_prepare_run);
PG_FUNCTION_INFO_V1(dptrain_training_in_place_pass);

Datum dptrain_training_prepare_run(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("source, label, features and algorithm must not be NULL"),
                    errhint("dptrain.training_prepare_run is the CLI's; call dp_train to train in the server.")));
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "dptrain.training_prepare_run must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  const Oid relid = PG_GETARG_OID(0);
  const char* label = text_to_cstring(PG_GETARG_TEXT_PP(1));
  const char* features = text_to_cstring(PG_GETARG_TEXT_PP(2));
  dptrain::TrainingConfig config;
  config.algorithm = text_to_cstring(PG_GETARG_TEXT_PP(3));
  DPT_CORE({ dptrain::make_algorithm(config.algorithm); });  // unknown names fail here
  dptrain::pg::PreparedData prep;
  const dptrain::pg::RunIdentities ids = dptrain::pg::caller_identities();
  // Arguments 6 and 7 (feature_bound, intercept), as dptrain.training_prepare.
  dptrain::pg::read_intercept_arguments(fcinfo, 6, 7, &prep);
  MemoryContext caller = CurrentMemoryContext;
  SPI_connect();
  dptrain::pg::inspect_training_data(relid, label, features, PG_ARGISNULL(4) ? nullptr : PG_GETARG_ARRAYTYPE_P(4), ids,
                                     &prep);
  prep.distributed = false;
  prep.shuffled = nullptr;
  const char* source_sql = nullptr;
  const char* read = "shuffled copy";
  if (IsolationUsesXactSnapshot() && dptrain::pg::can_read_in_place(relid, label, features, config, ids, prep)) {
    dptrain::pg::read_in_place(ids, &prep);
    prep.x_expr = dptrain::pg::with_intercept(prep.x_expr, &prep);
    // ONLY: a child attached during the run is not read (as dp_train's
    // distributed_source; the pass function checks it).
    source_sql = psprintf("ONLY %s", prep.source_name);
    read = "in place";
  } else {
    prep.unordered_copy = dptrain::pg::algorithm_is_order_free(config.algorithm);
    if (prep.unordered_copy) read = "unordered copy";
    dptrain::pg::copy_training_data(ids, !PG_ARGISNULL(5), PG_ARGISNULL(5) ? 0 : PG_GETARG_INT64(5), &prep);
  }
  MemoryContext old = MemoryContextSwitchTo(caller);
  Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * prep.nclasses));
  for (int i = 0; i < prep.nclasses; ++i) items[i] = CStringGetTextDatum(prep.classes[i]);
  Datum values[kColumns];
  bool nulls[kColumns] = {};
  values[kShuffled] = text_or_null(prep.shuffled, &nulls[kShuffled]);
  values[kSourceSql] = text_or_null(source_sql, &nulls[kSourceSql]);
  values[kSourceOid] = ObjectIdGetDatum(relid);
  values[kX] = text_or_null(source_sql ? prep.x_expr : nullptr, &nulls[kX]);
  values[kY] = text_or_null(source_sql ? prep.y_expr : nullptr, &nulls[kY]);
  values[kRows] = Int64GetDatum(prep.rows);
  values[kDim] = Int32GetDatum(prep.dim);
  values[kClasses] = PointerGetDatum(construct_array(items, prep.nclasses, TEXTOID, -1, false, TYPALIGN_INT));
  values[kFromData] = BoolGetDatum(prep.classes_from_data);
  values[kSourceName] = CStringGetTextDatum(prep.source_name);
  values[kRead] = CStringGetTextDatum(read);
  HeapTuple tuple = heap_form_tuple(tupdesc, values, nulls);
  MemoryContextSwitchTo(old);
  SPI_finish();
  dptrain::pg::remember_prepared_source(relid);  // checked again by store_model
  PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}

Datum dptrain_training_in_place_pass(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("source, pass and input must not be NULL"),
                    errhint("dptrain.training_in_place_pass is the CLI's; call dp_train to train in the server.")));
  if (!IsolationUsesXactSnapshot())
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("a pass read in place needs a REPEATABLE READ transaction"),
                    errdetail("Every pass of a run must read the same rows: one snapshot for the whole run."),
                    errhint("BEGIN ISOLATION LEVEL REPEATABLE READ before dptrain.training_prepare_run.")));
  const Oid relid = PG_GETARG_OID(0);
  const char* sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
  const Datum input = PG_GETARG_DATUM(2);
  SPI_connect();
  // Under REPEATABLE READ this is the transaction's snapshot.
  const Snapshot snapshot = dptrain::pg::begin_in_place_passes();
  const int rc = dptrain::pg::execute_in_place_pass(sql, input, snapshot, relid);
  if (rc != SPI_OK_SELECT || SPI_processed != 1 || SPI_tuptable->tupdesc->natts != 1 ||
      SPI_gettypeid(SPI_tuptable->tupdesc, 1) != FLOAT8ARRAYOID)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a pass must return one float8[] row"),
                    errhint("Pass a pass statement as the dptrain CLI builds it (one aggregate over the source).")));
  bool isnull = false;
  Datum result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
  if (!isnull) result = SPI_datumTransfer(result, false, -1);
  dptrain::pg::end_in_place_passes(snapshot);
  SPI_finish();
  if (isnull) PG_RETURN_NULL();
  PG_RETURN_DATUM(result);
}

}  // extern "C"
