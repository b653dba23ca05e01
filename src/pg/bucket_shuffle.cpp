#include "bucket_shuffle.h"

extern "C" {
#include "access/heapam.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "nodes/params.h"
#include "storage/buffile.h"
#include "tcop/dest.h"
}

#include "citus_read_barrier.h"
#include "copy_row_oids.h"
#include "shard_guard.h"
#include "core/privacy/random_source.h"
#include "core/sgd/bucket_shuffle.h"
#include "statement_checks.h"

namespace dptrain::pg {
namespace {

using dptrain::privacy::RandomSource;

// Pass 1's receiver: each result row goes to a uniformly random bucket, as
// a heap tuple (its length, then its t_data bytes). Pass 2 reads it back
// into one allocation laid out as heap_copytuple's (HeapTupleData, then the
// data) that the slot owns and frees: the insert copies it once, into the
// page.
struct BucketReceiver {
  DestReceiver pub;  // first: the executor sees a DestReceiver*
  RandomSource* rng;
  uint64 nbuckets;
  BufFile** files;        // nbuckets > 1: one temp file per bucket
  int64* counts;          // rows per bucket
  HeapTuple* memory;      // nbuckets == 1: the rows, in arrival order
  int64 capacity;
  MemoryContext rows_cxt;  // where in-memory rows live
  TupleDesc target;
};

void check_columns(TupleDesc query, TupleDesc target) {
  bool same = query->natts == target->natts;
  for (int i = 0; same && i < query->natts; ++i)
    same = TupleDescAttr(query, i)->atttypid == TupleDescAttr(target, i)->atttypid &&
           !TupleDescAttr(target, i)->attisdropped;
  if (!same) elog(ERROR, "dptrain: the shuffled rows do not match the columns of the training table");
}

void receiver_startup(DestReceiver* self, int, TupleDesc typeinfo) {
  check_columns(typeinfo, reinterpret_cast<BucketReceiver*>(self)->target);
}

bool receiver_receive(TupleTableSlot* slot, DestReceiver* self) {
  BucketReceiver* r = reinterpret_cast<BucketReceiver*>(self);
  CHECK_FOR_INTERRUPTS();
  const uint64 b = dptrain::sgd::bucket_of(*r->rng, r->nbuckets);
  if (r->nbuckets == 1) {
    if (r->counts[0] == r->capacity) {
      r->capacity *= 2;
      r->memory = static_cast<HeapTuple*>(repalloc_huge(r->memory, sizeof(HeapTuple) * r->capacity));
    }
    MemoryContext old = MemoryContextSwitchTo(r->rows_cxt);
    r->memory[r->counts[0]] = ExecCopySlotHeapTuple(slot);
    MemoryContextSwitchTo(old);
  } else {
    bool should_free;
    HeapTuple t = ExecFetchSlotHeapTuple(slot, false, &should_free);
    BufFileWrite(r->files[b], &t->t_len, sizeof(t->t_len));
    BufFileWrite(r->files[b], t->t_data, t->t_len);
    if (should_free) heap_freetuple(t);
  }
  ++r->counts[b];
  return true;
}

void receiver_shutdown(DestReceiver*) {}
void receiver_destroy(DestReceiver*) {}

// Pass 1: runs the query into the buckets.
void fill_buckets(BucketReceiver* r, const char* select_sql, int nargs, Oid* types, Datum* values,
                  const SourceRead* source) {
  ParamListInfo params = makeParamList(nargs);
  for (int i = 0; i < nargs; ++i) {
    params->params[i].value = values[i];
    params->params[i].isnull = false;
    params->params[i].pflags = PARAM_FLAG_CONST;
    params->params[i].ptype = types[i];
  }
  SPIExecuteOptions options;
  memset(&options, 0, sizeof(options));
  options.params = params;
  options.read_only = false;
  options.dest = &r->pub;
  // A query whose rows go to another receiver than SPI's reports SPI_OK_UTILITY.
  int rc;
  if (source != nullptr) {
    // Prepared, checked, executed at once (statement_checks.h).
    // (parallel workers allowed, as SPI_execute_extended allows them)
    SPIPlanPtr plan = prepare_checked(select_sql, nargs, types, CURSOR_OPT_PARALLEL_OK, *source);
    rc = run_reading(source->source, plan_calls_shard_guard(plan), [&] { return SPI_execute_plan_extended(plan, &options); });
    SPI_freeplan(plan);
  } else {
    rc = SPI_execute_extended(select_sql, &options);
  }
  if (rc != SPI_OK_UTILITY && rc != SPI_OK_SELECT) elog(ERROR, "dptrain: SPI failed (%d) on: %s", rc, select_sql);
}

// The rows of bucket b, in arrival order (read back from its file, which is
// closed), allocated in `cxt`.
HeapTuple* load_bucket(BucketReceiver* r, uint64 b, MemoryContext cxt) {
  const int64 n = r->counts[b];
  HeapTuple* rows = static_cast<HeapTuple*>(MemoryContextAllocHuge(cxt, sizeof(HeapTuple) * n));
  BufFile* f = r->files[b];
  if (BufFileSeek(f, 0, 0, SEEK_SET) != 0) elog(ERROR, "dptrain: could not rewind a shuffle bucket");
  for (int64 i = 0; i < n; ++i) {
    CHECK_FOR_INTERRUPTS();
    uint32 len;
    if (BufFileRead(f, &len, sizeof(len)) != sizeof(len))
      elog(ERROR, "dptrain: could not read a shuffle bucket");
    HeapTuple t = static_cast<HeapTuple>(MemoryContextAllocHuge(cxt, HEAPTUPLESIZE + len));
    t->t_len = len;
    ItemPointerSetInvalid(&t->t_self);
    t->t_tableOid = InvalidOid;
    t->t_data = reinterpret_cast<HeapTupleHeader>(reinterpret_cast<char*>(t) + HEAPTUPLESIZE);
    if (BufFileRead(f, t->t_data, len) != len) elog(ERROR, "dptrain: could not read a shuffle bucket");
    rows[i] = t;
  }
  BufFileClose(f);
  r->files[b] = nullptr;
  return rows;
}

// Pass 2 for one bucket: a uniform permutation of its rows, appended to the
// table (no triggers fire here: a copy spending one OID per row draws it
// itself, copy_row_oids.h).
void insert_permuted(BucketReceiver* r, HeapTuple* rows, int64 n, Relation rel, TupleTableSlot* slot,
                     CommandId cid, BulkInsertState bistate) {
  dptrain::sgd::fisher_yates(*r->rng, rows, static_cast<std::size_t>(n));
  const bool one_oid = spends_one_oid_per_row(rel);
  for (int64 i = 0; i < n; ++i) {
    CHECK_FOR_INTERRUPTS();
    HeapTuple row = one_oid ? row_spending_one_oid(rows[i], RelationGetDescr(rel)) : rows[i];
    if (row != rows[i]) heap_freetuple(rows[i]);
    ExecStoreHeapTuple(row, slot, true);  // the slot owns (and frees) the tuple
    table_tuple_insert(rel, slot, cid, 0, bistate);
    ExecClearTuple(slot);
  }
}

}  // namespace

int64 bucket_shuffle_insert(Oid target, const char* select_sql, int nargs, Oid* types, Datum* values, int64 rows,
                            int64 row_bytes, const SourceRead* source) {
  // The stream of this copy: a fresh key from the OS CSPRNG (RandomSource
  // is trivially destructible: an ERROR may longjmp past it).
  alignas(RandomSource) unsigned char rng_storage[sizeof(RandomSource)];
  RandomSource* rng = nullptr;
  uint64 nbuckets = 1;
  DPT_CORE({
    rng = new (rng_storage) RandomSource(RandomSource::secure());
    nbuckets = dptrain::sgd::bucket_count(static_cast<std::uint64_t>(rows < 0 ? 0 : rows),
                                          static_cast<std::uint64_t>(row_bytes < 1 ? 1 : row_bytes),
                                          static_cast<std::uint64_t>(work_mem) * 1024);
  });
  MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "dptrain shuffle", ALLOCSET_DEFAULT_SIZES);
  MemoryContext old = MemoryContextSwitchTo(cxt);
  Relation rel = table_open(target, RowExclusiveLock);

  BucketReceiver* r = static_cast<BucketReceiver*>(palloc0(sizeof(BucketReceiver)));
  r->pub.receiveSlot = receiver_receive;
  r->pub.rStartup = receiver_startup;
  r->pub.rShutdown = receiver_shutdown;
  r->pub.rDestroy = receiver_destroy;
  r->pub.mydest = DestNone;
  r->rng = rng;
  r->nbuckets = nbuckets;
  r->counts = static_cast<int64*>(palloc0(sizeof(int64) * nbuckets));
  r->rows_cxt = cxt;
  r->target = RelationGetDescr(rel);
  if (nbuckets == 1) {
    r->capacity = 1024;
    r->memory = static_cast<HeapTuple*>(MemoryContextAllocHuge(cxt, sizeof(HeapTuple) * r->capacity));
  } else {
    // Temp files of this (sub)transaction's resource owner: closed and
    // removed on ERROR as well.
    r->files = static_cast<BufFile**>(palloc(sizeof(BufFile*) * nbuckets));
    for (uint64 b = 0; b < nbuckets; ++b) r->files[b] = BufFileCreateTemp(false);
  }
  MemoryContextSwitchTo(old);
  const TimestampTz started = GetCurrentTimestamp();
  fill_buckets(r, select_sql, nargs, types, values, source);
  const TimestampTz filled = GetCurrentTimestamp();

  // Pass 2: bucket 0, 1, ..., B-1, each permuted.
  TupleTableSlot* slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
  BulkInsertState bistate = GetBulkInsertState();
  const CommandId cid = GetCurrentCommandId(true);
  MemoryContext bucket_cxt = AllocSetContextCreate(cxt, "dptrain shuffle bucket", ALLOCSET_DEFAULT_SIZES);
  int64 inserted = 0;
  for (uint64 b = 0; b < nbuckets; ++b) {
    const int64 n = r->counts[b];
    HeapTuple* bucket = nbuckets == 1 ? r->memory : load_bucket(r, b, bucket_cxt);
    insert_permuted(r, bucket, n, rel, slot, cid, bistate);
    MemoryContextReset(bucket_cxt);
    inserted += n;
  }
  FreeBulkInsertState(bistate);
  ExecDropSingleTupleTableSlot(slot);
  table_close(rel, NoLock);
  MemoryContextDelete(cxt);
  CommandCounterIncrement();
  // for benchmarks (bench/end_to_end.sh reads the DEBUG1 lines)
  const TimestampTz done = GetCurrentTimestamp();
  elog(DEBUG1, "dptrain: bucket shuffle of %lld rows in %llu buckets: pass 1 %.3f s, pass 2 %.3f s",
       static_cast<long long>(inserted), static_cast<unsigned long long>(nbuckets),
       (filled - started) / 1e6, (done - filled) / 1e6);
  return inserted;
}

}  // namespace dptrain::pg
