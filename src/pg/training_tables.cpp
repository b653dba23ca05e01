#include "training_tables.h"

extern "C" {
#include "nodes/bitmapset.h"
#include "storage/bufmgr.h"
}

#include "bucket_shuffle.h"
#include "copy_row_oids.h"
#include "training_spi.h"

namespace dptrain::pg {
namespace {

// The copies of seeded runs in this session (by their number N in
// pg_temp.dptrain_shuffled_N): their reshuffles keep ORDER BY random().
Bitmapset* seeded_copies = nullptr;

// A prepared table (pg_temp.dptrain_shuffled_N) or one of its parts
// (pg_temp.dptrain_shuffled_N_pP, the engine's part_table_name).
void require_shuffled_name(const char* shuffled) {
  int n = 0, p = 0;
  const int fields = sscanf(shuffled, "pg_temp.dptrain_shuffled_%d_p%d", &n, &p);
  const char* canonical = fields == 2 ? psprintf("pg_temp.dptrain_shuffled_%d_p%d", n, p)
                                      : psprintf("pg_temp.dptrain_shuffled_%d", n);
  if (fields < 1 || n < 1 || (fields == 2 && p < 1) || strcmp(shuffled, canonical) != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("\"%s\" is not a dptrain training table", shuffled),
                    errhint("Pass the shuffled table dptrain.training_prepare returned (pg_temp.dptrain_shuffled_N).")));
}

}  // namespace

void remember_seeded_copy(int copy) {
  MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
  seeded_copies = bms_add_member(seeded_copies, copy);
  MemoryContextSwitchTo(old);
}

// A new uniformly random order of the rows, drawn as the copy's: the
// bucket shuffle from the OS CSPRNG, or ORDER BY random() for the copies
// (and their parts) of a seeded run, whose pinned models depend on it.
void reshuffle_training_data(const char* shuffled) {
  require_shuffled_name(shuffled);
  const char* bare = shuffled + strlen("pg_temp.");
  int copy = 0;
  sscanf(shuffled, "pg_temp.dptrain_shuffled_%d", &copy);
  const bool seeded = bms_is_member(copy, seeded_copies);
  StringInfoData sql;
  initStringInfo(&sql);
  // (LIKE ...): the copy's own column types (x float8[] or dptrain.sparsevec) and
  // storage (uncompressed dense rows: create_copy_table), and its one OID
  // per sparse row (copy_row_oids.h).
  appendStringInfo(&sql, "CREATE TEMP TABLE %s_next (LIKE %s INCLUDING STORAGE) ON COMMIT DROP", shuffled, shuffled);
  spi_exec(sql.data, 0, nullptr, nullptr, SPI_OK_UTILITY);
  keep_one_oid_per_row(shuffled, psprintf("%s_next", shuffled));
  resetStringInfo(&sql);
  if (seeded) {
    appendStringInfo(&sql, "INSERT INTO %s_next SELECT i, x, y FROM %s ORDER BY random()", shuffled, shuffled);
    spi_exec(sql.data, 0, nullptr, nullptr, SPI_OK_INSERT);
  } else {
    // sized by the table's pages (its rows are not counted)
    Relation rel = table_open(temp_table_oid(bare), AccessShareLock);
    const int64 pages = RelationGetNumberOfBlocks(rel);
    table_close(rel, AccessShareLock);
    appendStringInfo(&sql, "SELECT i, x, y FROM %s", shuffled);
    // Reads the session's own temp table (pg_temp: no other session can
    // put anything there), as the runner: no name to check.
    bucket_shuffle_insert(temp_table_oid(psprintf("%s_next", bare)), sql.data, 0, nullptr, nullptr, pages, BLCKSZ,
                          nullptr);
  }
  resetStringInfo(&sql);
  appendStringInfo(&sql, "DROP TABLE %s; ALTER TABLE %s_next RENAME TO %s", shuffled, shuffled, bare);
  if (SPI_execute(sql.data, false, 0) < 0) elog(ERROR, "dptrain: reshuffle failed");
}

void drop_training_data(const char* shuffled) {
  require_shuffled_name(shuffled);
  if (SPI_execute(psprintf("DROP TABLE IF EXISTS %s", shuffled), false, 0) < 0)
    elog(ERROR, "dptrain: could not drop %s", shuffled);
}

char** split_training_data(const char* shuffled, int parts, int64* rows) {
  require_shuffled_name(shuffled);
  if (parts < 1)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("parts must be at least 1"),
                    errhint("Split into 1 to 1000 parts.")));
  char** names = static_cast<char**>(palloc(sizeof(char*) * parts));
  StringInfoData sql;
  initStringInfo(&sql);
  for (int p = 0; p < parts; ++p) {
    names[p] = psprintf("%s_p%d", shuffled, p + 1);  // the engine's part_table_name
    resetStringInfo(&sql);
    // A temp table is read by one sequential scan in insertion order (never
    // by parallel workers, never synchronized), so the inner row_number() is
    // the position in the random order; the outer one numbers the part's rows
    // 1..m_p in their order (column i, for BST14's dptrain.sampled_rows).
    spi_exec(psprintf("CREATE TEMP TABLE %s (LIKE %s INCLUDING STORAGE) ON COMMIT DROP", names[p], shuffled), 0,
             nullptr, nullptr, SPI_OK_UTILITY);
    keep_one_oid_per_row(shuffled, names[p]);
    appendStringInfo(&sql,
                     "INSERT INTO %s SELECT row_number() OVER (), x, y "
                     "FROM (SELECT x, y, row_number() OVER () - 1 AS r FROM %s) s WHERE r %% %d = %d",
                     names[p], shuffled, parts, p);
    if (SPI_execute(sql.data, false, 0) != SPI_OK_INSERT) elog(ERROR, "dptrain: could not split %s", shuffled);
    rows[p] = static_cast<int64>(SPI_processed);
  }
  return names;
}

}  // namespace dptrain::pg
