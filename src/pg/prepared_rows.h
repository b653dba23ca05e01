// Reading rows of a prepared training table (dptrain.training_prepare:
// columns i int8 = row number 1..n, x float8[], y float8) by row number,
// straight by tuple id: what the sampled passes (BST14's batches,
// sampled_rows.cpp; DP-SGD's Poisson lots, lot_rows.cpp) stream into their
// aggregates. A join of sampled row numbers with the table costs ~3 us per row
// in the executor; fetching by tid is several times cheaper. The map row
// number -> tid is built by one sequential scan per pass, which also checks
// that the numbers are exactly 1..n.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

struct PreparedRows {
  ExprContext* econtext;  // where the shutdown callback is registered
  Relation rel;
  Snapshot snapshot;
  TupleTableSlot* slot;
  ItemPointerData* tids;  // tids[i - 1] = tuple with row number i
  int64 rows;
  bool closed;
  bool sparse;  // x is dptrain.sparsevec: the result rows carry it densified (docs/sparse.md)
  Datum* values;  // one per column: a deformed tuple (fetch_prepared_chunk)
  bool* nulls;
};

// ERROR (22023) unless 1 <= rows <= the most rows a prepared table can map:
// called before a sampler allocates its batch (of at most `rows` entries).
void check_prepared_row_count(int64 rows);

// Opens the prepared table `relid` of this session (checks SELECT for the
// current user, that it is this session's temp table with the expected
// columns), maps its n = `rows` row numbers, and, when called from a
// set-returning function, registers a callback on its expression context
// that closes the table if the scan stops early (`r` then lives in the SRF's
// multi-call context).
void open_prepared_rows(FunctionCallInfo fcinfo, Oid relid, int64 rows, PreparedRows* r);

// Closes the table (before SRF_RETURN_DONE, which frees `r`).
void close_prepared_rows(PreparedRows* r);

// Fetches row number `row` (1..n) into r->slot; its x and y are
// r->slot->tts_values[1] and [2] (valid until the next fetch).
void fetch_prepared_row(PreparedRows* r, int64 row);

// --- Many rows at once, in physical order -------------------------------------
// Scratch for fetch_prepared_chunk: one per row of the largest chunk.
struct FetchSlot {
  uint64 key;   // (block << 16) | offset of the row's tuple
  int32 index;  // its position in the chunk
};

// Fetches rows[0..n) (row numbers 1..n of the table, repeats allowed) and
// writes row k's features to x[k * dim .. (k + 1) * dim) (a sparse x
// densified) and its label to y[k]. The rows are read in tuple-id order,
// each page pinned once for all its rows of the chunk (instead of one
// buffer lookup per row, in sampled order); where they land depends only on
// k, so the caller sees them in its own order. Allocations of detoasted
// values go to the current memory context (reset it per chunk).
void fetch_prepared_chunk(PreparedRows* r, const int64* rows, int n, FetchSlot* scratch, double* x, double* y,
                          int dim);

// The buffers of a pass that reads its rows a chunk at a time (sampled_epoch,
// lots_pass): the chunk's row numbers and tags (batch or lot), fetched
// features and labels, allocated once in the current memory context.
struct PreparedChunk {
  int capacity;  // rows
  int dim;
  int64* rows;
  int64* tags;
  FetchSlot* scratch;
  double* x;  // capacity * dim
  double* y;
  MemoryContext per_chunk;  // detoasted values of one chunk
};

// Features of one chunk: at most max(kChunkBytes, work_mem) bytes (rows *
// dim * 8), so a pass's memory does not grow with the table or the
// batch/lot size. A larger chunk reads each page for more of its rows,
// which matters when the table does not fit in temp_buffers (every page
// read is then a read from the OS): work_mem is the knob.
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;

// A chunk of `requested` rows (0 = as many as fit in the bytes above), never
// more than `at_most` (the rows the pass will read at all, >= 1).
PreparedChunk make_prepared_chunk(int32 requested, int64 at_most, int dim);
// Fetches the chunk's first n rows (fetch_prepared_chunk).
void fetch_chunk(PreparedRows* r, PreparedChunk* c, int n);

// --- The set-returning functions of the sampled passes -----------------------
// sampled_rows and lot_rows share the signature (state float8[], prepared
// regclass, rows int8) and the result (tag int8, x float8[], y float8), where
// the tag is the batch or lot a row belongs to.

struct SampledPassArguments {
  const double* state;  // in the multi-call memory context
  int state_length;
  Oid relid;
  int64 rows;
};

// The arguments of the first call (refusing NULLs with a hint naming `fn`).
// Call in the multi-call memory context.
SampledPassArguments sampled_pass_arguments(FunctionCallInfo fcinfo, const char* fn, const char* state_name);

// The one-call passes (sampled_epoch, lots_pass) take (state float8[],
// prepared regclass, rows int8, chunk_rows int4) and return the new state.
struct OneCallPassArguments {
  double* state;  // a palloc'd copy the pass updates in place
  int state_length;
  Oid relid;
  int64 rows;
  int32 chunk_rows;
};

// Refuses NULLs with a hint naming `fn`; copies the state.
OneCallPassArguments one_call_pass_arguments(FunctionCallInfo fcinfo, const char* fn, const char* state_name);

// The loop of a one-call pass over the prepared table of `a`: the next
// chunk's row numbers and tags from `sequence` (its next_chunk(rows, tags,
// capacity), 0 at the end, run inside DPT_CORE), fetched, then handed to
// `apply(chunk, n)` (PostgreSQL code: it runs its C++ inside DPT_CORE),
// until the sequence ends; then the table is closed. `at_most` bounds the
// chunk (make_prepared_chunk).
template <typename Sequence, typename Apply>
void stream_one_call_pass(FunctionCallInfo fcinfo, const OneCallPassArguments& a, int64 at_most, int dim,
                          Sequence* sequence, Apply apply) {
  PreparedChunk chunk = make_prepared_chunk(a.chunk_rows, at_most, dim);
  PreparedRows table{};
  open_prepared_rows(fcinfo, a.relid, a.rows, &table);
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    std::size_t n = 0;
    DPT_CORE({ n = sequence->next_chunk(chunk.rows, chunk.tags, static_cast<std::size_t>(chunk.capacity)); });
    if (n == 0) break;
    fetch_chunk(&table, &chunk, static_cast<int>(n));
    apply(static_cast<const PreparedChunk&>(chunk), n);
  }
  close_prepared_rows(&table);
}

// The blessed (tag, x, y) result row type of `fn`.
TupleDesc sampled_pass_result_type(FunctionCallInfo fcinfo, const char* fn);

// The result row (tag, x, y), x and y taken from r->slot: heap_form_tuple
// copies x out of the buffer before the next fetch unpins it. A sparse x
// is densified into the float8[] the result type declares.
Datum sampled_pass_row(TupleDesc desc, int64 tag, const PreparedRows* r);

// The marker row (tag, NULL, NULL).
Datum sampled_pass_marker(TupleDesc desc, int64 tag);

}  // namespace dptrain::pg
