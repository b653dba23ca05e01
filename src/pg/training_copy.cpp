// copy_training_data (training_data.h): one random permutation of a
// prepared source's (x, y) into a session-private temp table, with y mapped
// to the class index and i numbering the rows 1..n.
#include "training_data.h"

#include "bucket_shuffle.h"
#include "copy_row_oids.h"
#include "intercept_rows.h"
#include "label_classes.h"
#include "reading_errors.h"
#include "row_checks.h"
#include "sparsevec.h"
#include "training_spi.h"
#include "training_tables.h"

namespace dptrain::pg {
namespace {

// From this many rows (public: n is), the shuffle says when it starts and
// ends (issue 16, item 7); smaller copies take well under a second.
constexpr int64 kProgressRows = 100000;
int shuffle_counter = 0;

// The order of a copy's rows: a uniformly random one drawn by the bucket
// shuffle (every real run of an algorithm that needs one), the query's own
// (ORDER BY random() after setseed: seeded runs, tests only), or the
// source's scan order (runs that do not depend on the order at all:
// PreparedData::unordered_copy).
enum class CopyOrder { Bucket, Query, Source };

// The rows of a copy: "SELECT i, <select> FROM <source>", where `select`
// names columns of the source and i is the row's position in the source's
// scan (1..n, not data).
//   unseeded (every real run): in the source's order; fill_copy puts them
//     in a uniformly random order with the bucket shuffle (bucket_shuffle.h:
//     no sort, randomness from the OS CSPRNG; PostgreSQL's random(), not a
//     CSPRNG, plays no part).
//   seeded (tests only): ORDER BY random() after setseed(seed), evaluated
//     per row in scan order exactly as before, so seeded runs keep their
//     permutation and row numbers (the models pinned by
//     test/regress/sql/engine_pins.sql).
//   order-free runs (PreparedData::unordered_copy, seeded or not): in the
//     source's order, inserted as they come (no shuffle).
// Sorting whole rows (the former unseeded copy, ordered by a keyed SipHash of
// i) cost an external sort; sorting narrow (ctid, i) rows and fetching each
// row by ctid was slower still (docs/performance.md).
const char* shuffled_rows_sql(const char* from, const char* select, CopyOrder order) {
  return psprintf("SELECT row_number() OVER () AS i, %s FROM %s%s", select, from,
                  order == CopyOrder::Query ? " ORDER BY random()" : "");
}

struct FillCopy {
  const char* shuffled;
  const char* select_sql;
  int nargs;
  Oid* types;
  Datum* values;
  CopyOrder order;
  Oid reader;
  Oid source;
  int64 rows;
  int64 row_bytes;
  int64 copied;  // out: the rows inserted
};

void fill_copy_as_reader(void* arg) {
  FillCopy* f = static_cast<FillCopy*>(arg);
  if (f->order != CopyOrder::Bucket) {
    SourceRead read = source_read(f->source);
    read.insert_target = temp_table_oid(f->shuffled + strlen("pg_temp."));
    spi_exec_as_reader(f->reader, read, psprintf("INSERT INTO %s %s", f->shuffled, f->select_sql), f->nargs, f->types,
                       f->values, SPI_OK_INSERT);
    f->copied = static_cast<int64>(SPI_processed);
    return;
  }
  const Oid relid = temp_table_oid(f->shuffled + strlen("pg_temp."));
  IdentitySwitch sw;
  switch_identity(&sw, f->reader, true);
  const SourceRead read = source_read(f->source);
  f->copied = bucket_shuffle_insert(relid, f->select_sql, f->nargs, f->types, f->values, f->rows, f->row_bytes, &read);
  restore_identity(&sw);
}

// Fills the empty temp table `shuffled` with the rows (i, x, y) of
// `select_sql` (run with the rights of ids.reader): Bucket, a uniformly
// random order drawn by the bucket shuffle; otherwise the query's own order
// (seeded: ORDER BY random(); Source: the scan order). `rows` and
// `row_bytes` size its buckets. Without read
// access an error of the source's code (a view's expression) would print a
// row: it is hidden (reading_errors.h).
void fill_copy(const char* shuffled, const char* select_sql, int nargs, Oid* types, Datum* values, CopyOrder order,
               const RunIdentities& ids, Oid source, int64 rows, int64 row_bytes) {
  FillCopy f = {shuffled, select_sql, nargs, types, values, order, ids.reader, source, rows, row_bytes, -1};
  run_hiding_errors(ids, source, fill_copy_as_reader, &f);
  // The rows were counted before the charge, under another snapshot in a
  // READ COMMITTED transaction: a write committed meanwhile gave a copy of
  // another size, which every pass then refused as an internal error (XX000
  // "the epoch did not see every row exactly once", 22000 "row numbers are
  // not 1..n" for DP-SGD, XX000 for tuning parts). Same as a pass read in
  // place (core/engine/table_changed.h); no count named.
  if (f.copied != rows)
    ereport(ERROR, (errcode(DPTRAIN_ERRCODE_TABLE_CHANGED), errmsg("the table changed during training"),
                    errdetail("The copy did not read the rows counted before the run (the count fixes its plan and "
                              "its noise)."),
                    errhint("Train on a table no one writes while the run lasts (a view must give the same rows "
                            "on every read: no random(), TABLESAMPLE or sequence), or run it in a REPEATABLE READ "
                            "transaction (one snapshot for the count and every read), and try again.")));
}

// Bytes per row of a copy with d features, to size the shuffle's buckets:
// the float8[] (24-byte header, 8 per value and one for an intercept), i
// and y, the tuple header and the allocation around it. A sparse row's
// size depends on its non-zeros (data): the bound for nnz = d + 1 (12
// bytes per entry, 16 of header) is used instead, never a count from the data.
int64 copy_row_bytes(int dim, bool sparse) {
  return sparse ? 12 * (static_cast<int64>(dim) + 1) + 88 : 8 * (static_cast<int64>(dim) + 1) + 96;
}

// The copy of a reader's run: every row was checked (row_checks.h).
void copy_readable_rows(const char* shuffled, const RunIdentities& ids, CopyOrder order, const PreparedData* out) {
  const char* sql = psprintf("SELECT i, %s, (array_position($1, %s) - 1)::float8 FROM (%s) r",
                             with_intercept(out->sparse ? "x" : "x::float8[]", out),
                             label_class_sql("y", out->label_type),
                             shuffled_rows_sql(out->source_from, psprintf("%s AS x, %s AS y", out->x, out->y), order));
  Oid types[1] = {TEXTARRAYOID};
  Datum values[1] = {PointerGetDatum(out->classes_array)};
  fill_copy(shuffled, sql, 1, types, values, order, ids, out->relid, out->rows, copy_row_bytes(out->dim, out->sparse));
}

// A dense row as the copy stores it: detoasted (array_cat with an empty
// array returns its first argument fetched and decompressed), so that with
// the copy's STORAGE EXTERNAL (create_copy_table) every row is the same size
// and goes out of line or not by d alone. A float8[] source passes its
// compressed values through, and they stayed compressed in the copy.
const char* uncompressed_dense_row() {
  return "pg_catalog.array_cat(CASE WHEN u THEN xs ELSE $2 END, '{}'::pg_catalog.float8[])";
}

// The copy of a run without read access: a row that the training could not
// use as it is -- NULL or non-finite features, another length than d, NULL
// elements, a value beyond float8, a label that is NULL, NaN or not a
// declared class -- becomes the fixed public row (d zeros, the first class).
// Mapping each row by a fixed function keeps neighbouring tables
// neighbouring, so the run stays (epsilon, delta)-DP; and nothing about the
// replaced rows is reported.
void copy_replacing_unusable_rows(const char* shuffled, const RunIdentities& ids, CopyOrder order,
                                  const PreparedData* out) {
  const char* x = out->x;
  const int dim = out->dim;
  // numeric values no float8 holds (row_checks.h, numeric_beyond_float8_sql:
  // above 1.8e308, or rounding to 0 below 2.5e-324) would fail the cast:
  // such an array becomes NULL (unusable). Subnormal values cast, and are
  // trained on as a reader's run trains on them. A sparse row is taken as it
  // is (the type holds finite float8 values only).
  const bool sparse = out->sparse;
  const char* features = sparse ? x
                         : out->feature_elem == NUMERICOID
                             ? psprintf("CASE WHEN %s THEN NULL ELSE %s::float8[] END", numeric_beyond_float8_sql(x), x)
                             : psprintf("%s::float8[]", x);
  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql,
                   "SELECT i, %s, CASE WHEN u THEN ys ELSE 0 END "
                   "FROM (SELECT i, xs, ys, coalesce(dptrain.usable_row(xs, ys, $3), false) AS u FROM (%s) r) s",
                   with_intercept(sparse ? "CASE WHEN u THEN xs ELSE $2 END" : uncompressed_dense_row(), out),
                   shuffled_rows_sql(out->source_from,
                                     psprintf("%s AS xs, (array_position($1, %s) - 1)::float8 AS ys", features,
                                              label_class_sql(out->y, out->label_type)),
                                     order));
  double* zeros = static_cast<double*>(palloc0(sizeof(double) * dim));
  // The fixed public row: d zeros (for sparse rows: no entries, dimension d).
  Oid types[3] = {TEXTARRAYOID, sparse ? sparsevec_type_oid() : FLOAT8ARRAYOID, INT4OID};
  Datum values[3] = {PointerGetDatum(out->classes_array),
                     sparse ? PointerGetDatum(make_sparsevec(dim, 0, nullptr, nullptr))
                            : PointerGetDatum(make_float8_array(zeros, dim)),
                     Int32GetDatum(dim)};
  fill_copy(shuffled, sql.data, 3, types, values, order, ids, out->relid, out->rows, copy_row_bytes(dim, sparse));
}

// Tests only: makes ORDER BY random() reproducible in this session.
void set_query_seed(int64 seed) {
  Oid t[1] = {FLOAT8OID};
  Datum v[1] = {Float8GetDatum(static_cast<double>(seed % 2147483647) / 2147483647.0)};
  spi_exec("SELECT setseed($1)", 1, t, v, SPI_OK_SELECT);
}

// One random permutation, materialized: a temp table is never scanned by
// parallel workers, so every epoch over it is one sequential pass in
// this order (the permutation the bolt-on analysis fixes). It belongs to
// the runner; the reader may only insert into it. Column i numbers the
// rows 1..n (in the source's scan order, unrelated to their contents):
// BST14 fetches its sampled batches by row number (dptrain.sampled_rows).
// Returns its name, pg_temp.dptrain_shuffled_<shuffle_counter>.
const char* create_copy_table(const RunIdentities& ids, bool sparse) {
  const char* shuffled = psprintf("pg_temp.dptrain_shuffled_%d", ++shuffle_counter);
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  spi_exec(psprintf("CREATE TEMP TABLE %s (i int8 NOT NULL, x %s, y float8) ON COMMIT DROP", shuffled,
                    sparse ? "dptrain.sparsevec" : "float8[]"),
           0, nullptr, nullptr, SPI_OK_UTILITY);
  // Never compressed: a row that did not compress below the TOAST threshold
  // went out of line and took an OID from the cluster's counter, which every
  // role reads (lo_create(0)): the run spent one OID per such row, a count
  // of rows with a property (security_toast_oids.sql). Uncompressed, every
  // dense row of the copy has the same size (d values, no NULL). A sparse
  // row's size is its number of non-zeros: each row spends one OID, out of
  // line or not (copy_row_oids.h). A reader's copy stays compressed (it may
  // count such rows itself).
  if (!ids.caller_reads && sparse)
    spend_one_oid_per_row(shuffled);
  else if (!ids.caller_reads)
    spi_exec(psprintf("ALTER TABLE %s ALTER COLUMN x SET STORAGE EXTERNAL", shuffled), 0, nullptr, nullptr,
             SPI_OK_UTILITY);
  if (ids.reader != ids.runner)
    spi_exec(psprintf("GRANT INSERT ON %s TO %s", shuffled, quoted_role(ids.reader)), 0, nullptr, nullptr,
             SPI_OK_UTILITY);
  restore_identity(&sw);
  return shuffled;
}

// From kProgressRows rows on, a NOTICE before the copy and one after it.
void notice_copy_start(int64 rows, CopyOrder order) {
  if (rows < kProgressRows) return;
  if (order == CopyOrder::Source)
    ereport(NOTICE, (errmsg("dptrain: copying %lld rows in the table's order", (long long) rows),
                     errdetail("The run does not depend on the order of the rows: no shuffle.")));
  else
    ereport(NOTICE, (errmsg("dptrain: shuffling %lld rows into a random order", (long long) rows)));
}

void notice_copy_end(int64 rows, CopyOrder order, TimestampTz started) {
  if (rows < kProgressRows) return;
  ereport(NOTICE, (errmsg(order == CopyOrder::Source ? "dptrain: copied %lld rows" : "dptrain: shuffled %lld rows",
                          (long long) rows),
                   errdetail("In %.1f s.", seconds_since(started))));
}

}  // namespace

void copy_training_data(const RunIdentities& ids, bool has_seed, int64 seed, PreparedData* out) {
  if (has_seed) set_query_seed(seed);
  const char* shuffled = create_copy_table(ids, out->sparse);
  // A run that does not depend on the order of the rows gets none
  // (docs/performance.md, "Order-free copies").
  const CopyOrder order = out->unordered_copy ? CopyOrder::Source : has_seed ? CopyOrder::Query : CopyOrder::Bucket;
  if (order == CopyOrder::Query) remember_seeded_copy(shuffle_counter);
  const TimestampTz started = GetCurrentTimestamp();
  notice_copy_start(out->rows, order);
  if (ids.caller_reads)
    copy_readable_rows(shuffled, ids, order, out);
  else
    copy_replacing_unusable_rows(shuffled, ids, order, out);
  notice_copy_end(out->rows, order, started);
  out->shuffled = pstrdup(shuffled);
}

}  // namespace dptrain::pg
