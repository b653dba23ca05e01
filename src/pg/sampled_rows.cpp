// dptrain.sampled_rows(state float8[], prepared regclass, rows int8)
//   RETURNS SETOF dptrain.sampled_row (batch int8, x float8[], y float8)
//
// The rows of one BST14 epoch, batch after batch: the batches of
// src/core/sgd/batch_sampler.h (the same ones dptrain.sample_batches lists)
// fetched straight from the prepared temp table by tuple id. Called in a
// SELECT list, so it streams (value-per-call) into the aggregate:
//
//   SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1)
//   FROM (SELECT dptrain.sampled_rows($1, '<prepared table>', n) AS r) s;
//
// A join of the sampled row numbers with the table (one index lookup per
// row) costs ~3 us per row in the executor; fetching by tid here is several
// times cheaper. The map row number -> tid is built by one sequential scan
// at the start of every epoch (it checks that the numbers are exactly 1..n).
#include <memory>
#include <vector>

#include "core/sgd/batch_sampler.h"
#include "core/sgd/epoch_state.h"
#include "pg_glue.h"

namespace es = dptrain::epoch_state;

namespace {

// Everything C++ of one call sequence, freed with the SRF's memory context.
struct SamplerBox {
  std::unique_ptr<dptrain::BatchSampler> sampler;
  std::vector<std::int64_t> batch;
};

struct Epoch {
  ExprContext* econtext;  // where shutdown_epoch is registered
  Relation rel;
  Snapshot snapshot;
  TupleTableSlot* slot;
  ItemPointerData* tids;  // tids[i - 1] = tuple with row number i
  SamplerBox* box;
  int64 rows;
  int64 batch_size;
  int64 batches;
  int64 current;          // batch being returned (1-based), 0 before the first
  int64 next_in_batch;    // index into box->batch
  bool closed;
};

void close_epoch(Epoch* e) {
  if (e->closed) return;
  e->closed = true;
  ExecDropSingleTupleTableSlot(e->slot);
  UnregisterSnapshot(e->snapshot);
  table_close(e->rel, NoLock);
}

// Releases the relation, slot (buffer pin) and snapshot if the scan stops early.
void shutdown_epoch(Datum arg) { close_epoch(reinterpret_cast<Epoch*>(DatumGetPointer(arg))); }

void require_column(TupleDesc desc, int attnum, const char* name, Oid type) {
  if (desc->natts < attnum || TupleDescAttr(desc, attnum - 1)->atttypid != type ||
      strcmp(NameStr(TupleDescAttr(desc, attnum - 1)->attname), name) != 0)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("not a dptrain prepared training table"),
                    errdetail("Expected columns (i int8, x float8[], y float8)."),
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

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sampled_rows);

Datum dptrain_sampled_rows(PG_FUNCTION_ARGS) {
  FuncCallContext* fc;
  if (SRF_IS_FIRSTCALL()) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("state, table and rows must not be NULL")));
    fc = SRF_FIRSTCALL_INIT();
    MemoryContext old = MemoryContextSwitchTo(fc->multi_call_memory_ctx);
    int len = 0;
    const double* s = dptrain::pg::float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &len, "training state");
    const Oid relid = PG_GETARG_OID(1);
    const int64 rows = PG_GETARG_INT64(2);
    auto* e = static_cast<Epoch*>(palloc0(sizeof(Epoch)));
    SamplerBox* box = nullptr;
    DPT_CORE({
      es::validate(s, static_cast<std::size_t>(len));
      if (!es::sampled(s))
        dptrain::fail(dptrain::ErrorKind::InvalidParameter, "this training state does not sample its batches");
      const es::EpochConfig c = es::config_of(s);
      auto b = std::make_unique<SamplerBox>();
      b->sampler = std::make_unique<dptrain::BatchSampler>(dptrain::privacy::key_from_words(c.noise_key),
                                                           es::updates(s), rows, c.batch_size);
      b->batch.resize(static_cast<std::size_t>(c.batch_size));
      e->batch_size = c.batch_size;
      e->batches = dptrain::batches_per_epoch(rows, c.batch_size);
      box = b.release();
    });
    dptrain::pg::delete_on_reset(fc->multi_call_memory_ctx, box);
    e->box = box;
    e->rows = rows;
    e->next_in_batch = e->batch_size;  // the first call starts batch 1

    // The permutation path reads the table with the caller's rights through
    // the executor; here we read it directly, so check them ourselves.
    if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
      ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("permission denied for the training table")));
    e->rel = table_open(relid, AccessShareLock);
    if (e->rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP || RELATION_IS_OTHER_TEMP(e->rel))
      ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("not a dptrain prepared training table"),
                      errdetail("Prepared training tables are temporary tables of this session.")));
    TupleDesc desc = RelationGetDescr(e->rel);
    require_column(desc, 1, "i", INT8OID);
    require_column(desc, 2, "x", FLOAT8ARRAYOID);
    require_column(desc, 3, "y", FLOAT8OID);
    e->snapshot = RegisterSnapshot(GetActiveSnapshot());
    e->slot = table_slot_create(e->rel, nullptr);
    e->econtext = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo)->econtext;
    RegisterExprContextCallback(e->econtext, shutdown_epoch, PointerGetDatum(e));
    e->tids = map_row_numbers(e->rel, e->snapshot, e->slot, rows);

    TupleDesc out;
    if (get_call_result_type(fcinfo, nullptr, &out) != TYPEFUNC_COMPOSITE)
      elog(ERROR, "dptrain.sampled_rows must return a row type");
    fc->tuple_desc = BlessTupleDesc(out);
    fc->user_fctx = e;
    MemoryContextSwitchTo(old);
  }
  fc = SRF_PERCALL_SETUP();
  auto* e = static_cast<Epoch*>(fc->user_fctx);
  if (e->next_in_batch == e->batch_size) {
    if (e->current == e->batches) {
      // e lives in the multi-call context that SRF_RETURN_DONE deletes: the
      // callback must not outlive it.
      UnregisterExprContextCallback(e->econtext, shutdown_epoch, PointerGetDatum(e));
      close_epoch(e);
      SRF_RETURN_DONE(fc);
    }
    ++e->current;
    e->next_in_batch = 0;
    SamplerBox* box = e->box;
    DPT_CORE({ box->sampler->next(box->batch.data()); });
  }
  const int64 row = e->box->batch[static_cast<std::size_t>(e->next_in_batch++)];
  ItemPointerData tid = e->tids[row - 1];
  if (!table_tuple_fetch_row_version(e->rel, &tid, e->snapshot, e->slot))
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("training row %lld vanished", static_cast<long long>(row)),
                    errhint("Was the training table modified during training?")));
  slot_getsomeattrs(e->slot, 3);
  if (e->slot->tts_isnull[1] || e->slot->tts_isnull[2])
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("training row %lld has NULLs",
                                                                   static_cast<long long>(row))));
  Datum values[3] = {Int64GetDatum(e->current), e->slot->tts_values[1], e->slot->tts_values[2]};
  bool nulls[3] = {false, false, false};
  // heap_form_tuple copies x out of the buffer before the next fetch unpins it.
  HeapTuple tuple = heap_form_tuple(fc->tuple_desc, values, nulls);
  SRF_RETURN_NEXT(fc, HeapTupleGetDatum(tuple));
}

}  // extern "C"
