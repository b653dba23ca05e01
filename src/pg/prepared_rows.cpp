#include "prepared_rows.h"

#include <algorithm>

extern "C" {
#include "access/heapam.h"
#include "storage/bufmgr.h"
}
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

void check_prepared_row_count(int64 rows) {
  if (rows < 1 || static_cast<uint64>(rows) > MaxAllocSize / sizeof(ItemPointerData))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("rows out of range"),
                    errdetail("rows must be between 1 and %lld.",
                              static_cast<long long>(MaxAllocSize / sizeof(ItemPointerData))),
                    errhint("rows is the row count of the prepared training table.")));
}

void open_prepared_rows(FunctionCallInfo fcinfo, Oid relid, int64 rows, PreparedRows* r) {
  check_prepared_row_count(rows);
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
  // A set-returning caller may be stopped early: close then. A plain
  // function (sampled_epoch) closes before it returns, or errors out, and
  // the transaction's abort releases the relation, pin and snapshot.
  auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  r->econtext = rsinfo != nullptr && IsA(rsinfo, ReturnSetInfo) ? rsinfo->econtext : nullptr;
  if (r->econtext != nullptr) RegisterExprContextCallback(r->econtext, shutdown_rows, PointerGetDatum(r));
  r->tids = map_row_numbers(r->rel, r->snapshot, r->slot, rows);
  r->values = static_cast<Datum*>(palloc(sizeof(Datum) * desc->natts));
  r->nulls = static_cast<bool*>(palloc(sizeof(bool) * desc->natts));
}

void close_prepared_rows(PreparedRows* r) {
  // r lives in the multi-call context that SRF_RETURN_DONE deletes: the
  // callback must not outlive it.
  if (r->econtext != nullptr) UnregisterExprContextCallback(r->econtext, shutdown_rows, PointerGetDatum(r));
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

namespace {

pg_attribute_noreturn() void vanished(int64 row) {
  ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("training row %lld vanished", static_cast<long long>(row)),
                  errhint("Was the training table modified during training?")));
}

// The features of one fetched row as `dim` doubles (a sparse row densified).
void copy_features(const PreparedRows* r, Datum x, double* out, int dim) {
  if (r->sparse) {
    auto* v = reinterpret_cast<SparseVec*>(PG_DETOAST_DATUM(x));
    if (v->dim != dim)
      ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature arrays have different lengths"),
                      errdetail("A row has %d features, the training expects %d.", v->dim, dim),
                      errhint("Every row must have the same number of features.")));
    std::fill_n(out, dim, 0.0);
    const int32* index = sparsevec_index(v);
    const double* value = sparsevec_value(v);
    for (int32 k = 0; k < v->nnz; ++k) {
      if (index[k] < 0 || index[k] >= dim) elog(ERROR, "dptrain: sparse index out of range");
      out[index[k]] = value[k];
    }
    if (reinterpret_cast<Pointer>(v) != DatumGetPointer(x)) pfree(v);
    return;
  }
  ArrayType* a = DatumGetArrayTypeP(x);
  // A reader's NULL element reaches here (dp_train copies its rows as they
  // are): the epoch aggregate's error, not advice to filter them first.
  if (ARR_NDIM(a) == 1 && ARR_ELEMTYPE(a) == FLOAT8OID && ARR_HASNULL(a) && array_contains_nulls(a))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("feature array must not contain NULL elements"),
                    errhint("Remove or repair rows with NULL features before training.")));
  if (ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != FLOAT8OID)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature array must be one-dimensional without NULLs"),
                    errhint("Filter rows with dptrain.usable_row(...) first, as dp_train does.")));
  if (ARR_DIMS(a)[0] != dim)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature arrays have different lengths"),
                    errdetail("A row has %d features, the training expects %d.", ARR_DIMS(a)[0], dim),
                    errhint("Every row must have the same number of features.")));
  memcpy(out, ARR_DATA_PTR(a), sizeof(double) * static_cast<std::size_t>(dim));
  if (reinterpret_cast<Pointer>(a) != DatumGetPointer(x)) pfree(a);
}

}  // namespace

void fetch_prepared_chunk(PreparedRows* r, const int64* rows, int n, FetchSlot* order, double* x, double* y,
                          int dim) {
  for (int k = 0; k < n; ++k) {
    if (rows[k] < 1 || rows[k] > r->rows)
      elog(ERROR, "dptrain: row number %lld out of range", static_cast<long long>(rows[k]));
    const ItemPointerData* tid = &r->tids[rows[k] - 1];
    order[k].key = (static_cast<uint64>(ItemPointerGetBlockNumber(tid)) << 16) | ItemPointerGetOffsetNumber(tid);
    order[k].index = k;
  }
  std::sort(order, order + n, [](const FetchSlot& a, const FetchSlot& b) { return a.key < b.key; });
  TupleDesc desc = RelationGetDescr(r->rel);
  Buffer buffer = InvalidBuffer;
  BlockNumber current = InvalidBlockNumber;
  for (int j = 0; j < n; ++j) {
    const int k = order[j].index;
    double* xk = x + static_cast<std::size_t>(k) * dim;
    if (j > 0 && order[j].key == order[j - 1].key) {  // a row sampled twice in this chunk
      const int prev = order[j - 1].index;
      memcpy(xk, x + static_cast<std::size_t>(prev) * dim, sizeof(double) * static_cast<std::size_t>(dim));
      y[k] = y[prev];
      continue;
    }
    const ItemPointerData* tid = &r->tids[rows[k] - 1];
    const BlockNumber block = ItemPointerGetBlockNumber(tid);
    if (block != current) {
      if (BufferIsValid(buffer)) ReleaseBuffer(buffer);
      buffer = ReadBuffer(r->rel, block);
      current = block;
    }
    // The map (map_row_numbers) holds exactly the tuples visible to this
    // snapshot, taken in this call, and nothing writes the table until we
    // return; so, unlike heap_fetch, no visibility check per row: the line
    // pointer must still be a tuple, and the tuple must carry row number
    // rows[k], else the table changed under us. The pin keeps the tuple in
    // place while it is read (a heap page is only pruned under a cleanup lock).
    HeapTupleData tuple;
    bool normal = false;
    LockBuffer(buffer, BUFFER_LOCK_SHARE);
    Page page = BufferGetPage(buffer);
    const OffsetNumber offset = ItemPointerGetOffsetNumber(tid);
    if (offset >= FirstOffsetNumber && offset <= PageGetMaxOffsetNumber(page)) {
      ItemId lp = PageGetItemId(page, offset);
      if (ItemIdIsNormal(lp)) {
        tuple.t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, lp));
        tuple.t_len = ItemIdGetLength(lp);
        tuple.t_tableOid = RelationGetRelid(r->rel);
        tuple.t_self = *tid;
        normal = true;
      }
    }
    LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
    if (!normal) vanished(rows[k]);
    heap_deform_tuple(&tuple, desc, r->values, r->nulls);  // one pass over i, x, y
    if (r->nulls[0] || DatumGetInt64(r->values[0]) != rows[k]) vanished(rows[k]);
    if (r->nulls[1] || r->nulls[2])
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("training row %lld has NULLs", static_cast<long long>(rows[k])),
                      errhint("Was the training table modified during training?")));
    const Datum xd = r->values[1];
    const Datum yd = r->values[2];
    copy_features(r, xd, xk, dim);
    y[k] = DatumGetFloat8(yd);
  }
  if (BufferIsValid(buffer)) ReleaseBuffer(buffer);
}

PreparedChunk make_prepared_chunk(int32 requested, int64 at_most, int dim) {
  if (requested < 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("chunk_rows must not be negative"),
                    errhint("0 picks the chunk size by memory.")));
  const std::size_t bytes = std::max(kChunkBytes, static_cast<std::size_t>(work_mem) * 1024);
  const int64 by_memory = std::max<int64>(1, static_cast<int64>(bytes / (sizeof(double) * std::max(dim, 1))));
  PreparedChunk c{};
  c.capacity = static_cast<int>(std::max<int64>(1, std::min<int64>(requested > 0 ? requested : by_memory, at_most)));
  c.dim = dim;
  c.rows = static_cast<int64*>(palloc(sizeof(int64) * c.capacity));
  c.tags = static_cast<int64*>(palloc(sizeof(int64) * c.capacity));
  c.scratch = static_cast<FetchSlot*>(palloc(sizeof(FetchSlot) * c.capacity));
  c.x = static_cast<double*>(palloc(sizeof(double) * static_cast<std::size_t>(c.capacity) * dim));
  c.y = static_cast<double*>(palloc(sizeof(double) * c.capacity));
  c.per_chunk = AllocSetContextCreate(CurrentMemoryContext, "dptrain chunk", ALLOCSET_DEFAULT_SIZES);
  return c;
}

void fetch_chunk(PreparedRows* r, PreparedChunk* c, int n) {
  MemoryContext old = MemoryContextSwitchTo(c->per_chunk);
  fetch_prepared_chunk(r, c->rows, n, c->scratch, c->x, c->y, c->dim);
  MemoryContextSwitchTo(old);
  MemoryContextReset(c->per_chunk);
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

OneCallPassArguments one_call_pass_arguments(FunctionCallInfo fcinfo, const char* fn, const char* state_name) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("state, table, rows and chunk_rows must not be NULL"),
                    errhint("%s is internal to dp_train; train with dp_train (or dptrain train).", fn)));
  OneCallPassArguments a{};
  const double* in = float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &a.state_length, state_name);
  const std::size_t bytes = sizeof(double) * static_cast<std::size_t>(a.state_length);
  a.state = static_cast<double*>(palloc(bytes));
  memcpy(a.state, in, bytes);
  a.relid = PG_GETARG_OID(1);
  a.rows = PG_GETARG_INT64(2);
  a.chunk_rows = PG_GETARG_INT32(3);
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
