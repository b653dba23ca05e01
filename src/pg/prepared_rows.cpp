#include "prepared_rows.h"

#include "sparsevec.h"

namespace dptrain::pg {
namespace {

void close_now(PreparedRows* r) {
  if (r->closed) return;
  r->closed = true;
  ExecDropSingleTupleTableSlot(r->slot);
  UnregisterSnapshot(r->snapshot);
  table_close(r->rel, NoLock);
}

// Releases the relation, slot (buffer pin) and snapshot if the scan stops early.
void shutdown_rows(Datum arg) { close_now(reinterpret_cast<PreparedRows*>(DatumGetPointer(arg))); }

void require_column(TupleDesc desc, int attnum, const char* name, Oid type, Oid or_type = InvalidOid) {
  if (desc->natts < attnum ||
      (TupleDescAttr(desc, attnum - 1)->atttypid != type && TupleDescAttr(desc, attnum - 1)->atttypid != or_type) ||
      strcmp(NameStr(TupleDescAttr(desc, attnum - 1)->attname), name) != 0)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("not a dptrain prepared training table"),
                    errdetail("Expected columns (i int8, x float8[] or dptrain.sparsevec, y float8)."),
                    errhint("Pass the table returned by dptrain.training_prepare.")));
}

// One sequential scan: tids[i - 1] for i = 1..rows, every number exactly once.
ItemPointerData* map_row_numbers(Relation rel, Snapshot snapshot, TupleTableSlot* slot, int64 rows) {
  auto* tids = static_cast<ItemPointerData*>(palloc0(sizeof(ItemPointerData) * rows));
  int64 seen = 0;
  TableScanDesc scan = table_beginscan(rel, snapshot, 0, nullptr);
  while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
    bool isnull;
    const int64 i = DatumGetInt64(slot_getattr(slot, 1, &isnull));
    if (isnull || i < 1 || i > rows || ItemPointerIsValid(&tids[i - 1]))
      ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("the training table's row numbers are not 1..%lld",
                                                             static_cast<long long>(rows)),
                      errhint("Was the training table modified during training?")));
    tids[i - 1] = slot->tts_tid;
    ++seen;
  }
  table_endscan(scan);
  ExecClearTuple(slot);
  if (seen != rows)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                    errmsg("the training table has %lld rows, expected %lld", static_cast<long long>(seen),
                           static_cast<long long>(rows)),
                    errhint("Was the training table modified during training?")));
  return tids;
}

}  // namespace

void open_prepared_rows(FunctionCallInfo fcinfo, Oid relid, int64 rows, PreparedRows* r) {
  if (rows < 1 || static_cast<uint64>(rows) > MaxAllocSize / sizeof(ItemPointerData))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("rows out of range"),
                    errhint("rows is the row count of the prepared training table.")));
  // The permutation path reads the table with the caller's rights through
  // the executor; here we read it directly, so check them ourselves.
  if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("permission denied for the training table"),
                    errhint("Ask the table owner for SELECT on it.")));
  r->rel = table_open(relid, AccessShareLock);
  if (r->rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP || RELATION_IS_OTHER_TEMP(r->rel))
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("not a dptrain prepared training table"),
                    errdetail("Prepared training tables are temporary tables of this session."),
                    errhint("Train with dp_train (or dptrain train); they prepare the table.")));
  TupleDesc desc = RelationGetDescr(r->rel);
  require_column(desc, 1, "i", INT8OID);
  const Oid sparsevec = sparsevec_type_oid();
  require_column(desc, 2, "x", FLOAT8ARRAYOID, sparsevec);
  r->sparse = OidIsValid(sparsevec) && TupleDescAttr(desc, 1)->atttypid == sparsevec;
  require_column(desc, 3, "y", FLOAT8OID);
  r->rows = rows;
  r->snapshot = RegisterSnapshot(GetActiveSnapshot());
  r->slot = table_slot_create(r->rel, nullptr);
  r->econtext = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo)->econtext;
  RegisterExprContextCallback(r->econtext, shutdown_rows, PointerGetDatum(r));
  r->tids = map_row_numbers(r->rel, r->snapshot, r->slot, rows);
}

void close_prepared_rows(PreparedRows* r) {
  // r lives in the multi-call context that SRF_RETURN_DONE deletes: the
  // callback must not outlive it.
  UnregisterExprContextCallback(r->econtext, shutdown_rows, PointerGetDatum(r));
  close_now(r);
}

void fetch_prepared_row(PreparedRows* r, int64 row) {
  if (row < 1 || row > r->rows) elog(ERROR, "dptrain: row number %lld out of range", static_cast<long long>(row));
  ItemPointerData tid = r->tids[row - 1];
  if (!table_tuple_fetch_row_version(r->rel, &tid, r->snapshot, r->slot))
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("training row %lld vanished", static_cast<long long>(row)),
                    errhint("Was the training table modified during training?")));
  slot_getsomeattrs(r->slot, 3);
  if (r->slot->tts_isnull[1] || r->slot->tts_isnull[2])
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("training row %lld has NULLs",
                                                                   static_cast<long long>(row)),
                    errhint("Was the training table modified during training?")));
}

SampledPassArguments sampled_pass_arguments(FunctionCallInfo fcinfo, const char* fn, const char* state_name) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("state, table and rows must not be NULL"),
                    errhint("%s is internal to dp_train; train with dp_train (or dptrain train).", fn)));
  SampledPassArguments a{};
  a.state = float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &a.state_length, state_name);
  a.relid = PG_GETARG_OID(1);
  a.rows = PG_GETARG_INT64(2);
  return a;
}

TupleDesc sampled_pass_result_type(FunctionCallInfo fcinfo, const char* fn) {
  TupleDesc out;
  if (get_call_result_type(fcinfo, nullptr, &out) != TYPEFUNC_COMPOSITE) elog(ERROR, "%s must return a row type", fn);
  return BlessTupleDesc(out);
}

Datum sampled_pass_row(TupleDesc desc, int64 tag, const PreparedRows* r) {
  Datum x = r->slot->tts_values[1];
  if (r->sparse) {
    // O(d): the sampled passes' aggregates are dense (docs/sparse.md)
    SparseVec* v = reinterpret_cast<SparseVec*>(PG_DETOAST_DATUM(x));
    double* dense = static_cast<double*>(palloc0(sizeof(double) * v->dim));
    const int32* index = sparsevec_index(v);
    const double* value = sparsevec_value(v);
    for (int32 k = 0; k < v->nnz; ++k) dense[index[k]] = value[k];
    x = PointerGetDatum(make_float8_array(dense, v->dim));
  }
  Datum values[3] = {Int64GetDatum(tag), x, r->slot->tts_values[2]};
  bool nulls[3] = {false, false, false};
  return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

Datum sampled_pass_marker(TupleDesc desc, int64 tag) {
  Datum values[3] = {Int64GetDatum(tag), 0, 0};
  bool nulls[3] = {false, true, true};
  return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}

}  // namespace dptrain::pg
