#include "distributed_source.h"
#include "pass_messages.h"

#include <string>
#include <vector>

#include "core/engine/distributed.h"

#include "utils/fmgroids.h"
#include "label_classes.h"
#include "row_checks.h"
#include "shard_guard.h"
#include "statement_checks.h"
#include "training_spi.h"

namespace dptrain::pg {
namespace {

bool citus_installed() {
  spi_exec("SELECT 1 FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'citus'", 0, nullptr,
               nullptr, SPI_OK_SELECT);
  return SPI_processed == 1;
}

// The distribution column of a hash-distributed table, or NULL.
char* hash_distribution_column(Oid relid) {
  Oid type[1] = {REGCLASSOID};
  Datum value[1] = {ObjectIdGetDatum(relid)};
  spi_exec("SELECT pg_catalog.column_to_column_name(p.logicalrelid, p.partkey) "
               "FROM pg_catalog.pg_dist_partition p "
               "WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1 AND p.partmethod OPERATOR(pg_catalog.=) 'h'",
               1, type, value, SPI_OK_SELECT);
  if (SPI_processed != 1) return nullptr;
  char* column = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
  return column ? pstrdup(column) : nullptr;
}

// The shard ids of `relid`, ascending.
List* shard_ids(Oid relid) {
  Oid type[1] = {REGCLASSOID};
  Datum value[1] = {ObjectIdGetDatum(relid)};
  spi_exec("SELECT s.shardid FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid OPERATOR(pg_catalog.=) $1 "
               "ORDER BY s.shardid",
               1, type, value, SPI_OK_SELECT);
  List* ids = NIL;
  bool isnull;
  for (uint64 i = 0; i < SPI_processed; ++i) {
    int64* id = static_cast<int64*>(palloc(sizeof(int64)));
    *id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
    ids = lappend(ids, id);
  }
  return ids;
}

// The shard id at the end of a shard's name as its worker prints it
// (schema.table_102008, quoted or not), or -1.
int64 shard_id_of_name(const char* name) {
  const char* end = name + strlen(name);
  if (end > name && end[-1] == '"') --end;
  const char* digits = end;
  while (digits > name && digits[-1] >= '0' && digits[-1] <= '9') --digits;
  if (digits == end || digits == name || digits[-1] != '_' || end - digits > 18) return -1;
  return pg_strtoint64(pnstrdup(digits, end - digits));
}

// Rows from a relation that is not one of the table's shards (or one
// shard's rows in two groups).
void refuse_foreign_rows(const char* source_name, const char* name) {
  ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                  errmsg("the rows of \"%s\" come from a relation that is not one of its shards", source_name),
                  errdetail("A node read them from %s.", name ? name : "a relation without a name"),
                  errhint("Was a shard renamed on a worker?")));
}

// The index in `shards` of the shard a worker named `name` (NULL: none), or
// an error: a name that is not one of the table's shards.
int shard_index(List* shards, const char* name, const char* source_name) {
  const int64 id = name ? shard_id_of_name(name) : -1;
  const int S = list_length(shards);
  int s = 0;
  while (s < S && *static_cast<int64*>(list_nth(shards, s)) != id) ++s;
  if (s == S) refuse_foreign_rows(source_name, name);
  return s;
}

// n_s of every shard, in shard id order, counted with the reader's rights
// (as n itself), in one statement checked on the coordinator and guarded on
// every worker (shard_guard.h): each shard's rows grouped by the name of the
// relation they come from there. Public by the assumption of
// docs/distributed.md section 2. An empty shard has no group: 0.
void count_shard_rows(Oid relid, const RunIdentities& ids, PreparedData* prep) {
  List* shards = shard_ids(relid);
  const int S = list_length(shards);
  if (S < 1) elog(ERROR, "dptrain: the distributed table \"%s\" has no shards", prep->source_name);
  const char* sql = psprintf(
      "SELECT %s.tableoid::pg_catalog.regclass::pg_catalog.text, pg_catalog.count(*)::pg_catalog.int8 "
      "FROM ONLY %s AS %s WHERE %s GROUP BY 1",
      kShardGuardAlias, prep->source_name, kShardGuardAlias, shard_guard_sql(relid));
  SourceRead source;
  source.source = relid;
  source.only = true;
  IdentitySwitch sw;
  switch_identity(&sw, ids.reader, true);
  const int rc = execute_checked(sql, 0, nullptr, nullptr, true, 0, source);
  restore_identity(&sw);
  if (rc != SPI_OK_SELECT) elog(ERROR, "dptrain: SPI failed (%d) on: %s", rc, sql);
  prep->nshards = S;
  prep->shard_rows = static_cast<int64*>(palloc0(sizeof(int64) * S));
  bool* seen = static_cast<bool*>(palloc0(sizeof(bool) * S));
  int64 total = 0;
  bool isnull;
  for (uint64 r = 0; r < SPI_processed; ++r) {
    const char* name = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1);
    const int64 rows = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull));
    const int s = shard_index(shards, name, prep->source_name);
    if (seen[s]) refuse_foreign_rows(prep->source_name, name);
    seen[s] = true;
    prep->shard_rows[s] = rows;
    total += rows;
  }
  if (total != prep->rows)
    ereport(ERROR, (errcode(DPTRAIN_ERRCODE_TABLE_CHANGED),
                    errmsg("the shards of \"%s\" hold %lld rows, the table %lld", prep->source_name,
                           (long long) total, (long long) prep->rows),
                    errhint("Was the table modified during training? Try again.")));
}

bool has_row_security(Oid relid) {
  HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for relation %u", relid);
  const bool rls = reinterpret_cast<Form_pg_class>(GETSTRUCT(t))->relrowsecurity;
  ReleaseSysCache(t);
  return rls;
}

// True if `column` alone is the key of a unique index of `relid` (as a
// surrogate key would be; a data column rarely is).
bool unique_by_itself(Oid relid, AttrNumber column) {
  Oid types[2] = {OIDOID, INT2OID};
  Datum values[2] = {ObjectIdGetDatum(relid), Int16GetDatum(column)};
  spi_exec("SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid OPERATOR(pg_catalog.=) $1 AND i.indisunique "
               "AND i.indnkeyatts OPERATOR(pg_catalog.=) 1 AND i.indkey[0] OPERATOR(pg_catalog.=) $2",
               2, types, values, SPI_OK_SELECT);
  return SPI_processed > 0;
}

}  // namespace

bool is_citus_table(Oid relid) {
  if (!citus_installed()) return false;
  Oid type[1] = {REGCLASSOID};
  Datum value[1] = {ObjectIdGetDatum(relid)};
  spi_exec("SELECT 1 FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1", 1, type,
               value, SPI_OK_SELECT);
  return SPI_processed > 0;
}

Oid citus_table_behind(Oid relid) {
  if (!citus_installed()) return InvalidOid;
  // What reading `relid` reads as well: the relations a view's rule (not a
  // materialized view's: its rows are stored locally) or a row-security
  // policy refers to, and inheritance children and partitions, transitively.
  Oid type[1] = {OIDOID};
  Datum value[1] = {ObjectIdGetDatum(relid)};
  // Each step joins through the catalogs' indexes (pg_rewrite and
  // pg_policy by relation, pg_depend by depender): a condition OR-ing the
  // two kinds of depender scanned every pg_depend row referring to a
  // relation once per relation reached (measured: 1.25 s for a chain of 400
  // views among 21,000 pg_depend rows; 10 ms this way).
  spi_exec(
      "WITH RECURSIVE reached(relid) AS ("
      " SELECT $1"
      " UNION"
      " SELECT next.relid FROM reached r CROSS JOIN LATERAL ("
      "  SELECT d.refobjid FROM pg_catalog.pg_rewrite w"
      "  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) w.ev_class"
      "  JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass"
      "   AND d.objid OPERATOR(pg_catalog.=) w.oid"
      "  WHERE w.ev_class OPERATOR(pg_catalog.=) r.relid AND c.relkind OPERATOR(pg_catalog.=) 'v'"
      "   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
      "  UNION ALL"
      "  SELECT d.refobjid FROM pg_catalog.pg_policy p"
      "  JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass"
      "   AND d.objid OPERATOR(pg_catalog.=) p.oid"
      "  WHERE p.polrelid OPERATOR(pg_catalog.=) r.relid"
      "   AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
      "  UNION ALL"
      "  SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent OPERATOR(pg_catalog.=) r.relid"
      " ) AS next(relid))"
      " SELECT r.relid FROM reached r JOIN pg_catalog.pg_dist_partition p"
      "  ON p.logicalrelid OPERATOR(pg_catalog.=) r.relid::pg_catalog.regclass"
      " WHERE r.relid OPERATOR(pg_catalog.<>) $1 LIMIT 1",
      1, type, value, SPI_OK_SELECT);
  if (SPI_processed == 0) return InvalidOid;
  bool isnull = false;
  return DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

// The rows as the copy of a plain table would hold them (training_copy.cpp):
// for a reader, the features cast to float8[] and the class index; for a
// role without read access, every row a run cannot use replaced by the
// fixed public row (d zeros, first class), with no error depending on it.
void source_row_expressions(const RunIdentities& ids, PreparedData* prep) {
  const char* classes = quote_literal_cstr(
      OidOutputFunctionCall(F_ARRAY_OUT, PointerGetDatum(prep->classes_array)));
  const char* ys = psprintf("(pg_catalog.array_position(%s::pg_catalog.text[], %s) "
                            "OPERATOR(pg_catalog.-) 1)::pg_catalog.float8",
                            classes, label_class_sql(prep->y, prep->label_type));
  if (ids.caller_reads) {
    // Sparse rows stay sparse (the sparse aggregates take them as they are).
    prep->x_expr = prep->sparse ? pstrdup(prep->x) : psprintf("%s::pg_catalog.float8[]", prep->x);
    prep->y_expr = pstrdup(ys);
    return;
  }
  // numeric values no float8 holds (row_checks.h): NULL, i.e. unusable.
  const char* xs = prep->feature_elem == NUMERICOID
                       ? psprintf("(CASE WHEN %s THEN NULL ELSE %s::pg_catalog.float8[] END)",
                                  numeric_beyond_float8_sql(prep->x), prep->x)
                       : psprintf("%s::pg_catalog.float8[]", prep->x);
  const char* usable = psprintf("COALESCE(dptrain.usable_row(%s, %s, %d), false)", xs, ys, prep->dim);
  prep->x_expr = psprintf("(CASE WHEN %s THEN %s ELSE pg_catalog.array_fill(0::pg_catalog.float8, ARRAY[%d]) END)",
                          usable, xs, prep->dim);
  prep->y_expr = psprintf("(CASE WHEN %s THEN %s ELSE 0::pg_catalog.float8 END)", usable, ys);
}

namespace {

// The distribution column of a table trained in place (docs/distributed.md):
// neither the label nor the features, an integer, and every column the
// passes read of a built-in type.
void check_distribution_column(Oid relid, const char* label, const char* features, const char* column,
                               const char* source_name) {
  // Section 2: the guarantee assumes a replaced row stays in its shard.
  if (strcmp(column, label) == 0 || strcmp(column, features) == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("\"%s\" is distributed by its %s column \"%s\"", source_name,
                           strcmp(column, label) == 0 ? "label" : "features", column),
                    errdetail("Replacing a row would move it to another shard and change the shard sizes the "
                              "distributed privacy guarantee treats as public."),
                    errhint("Distribute the table by a surrogate key (an id that is not data).")));
  const Oid type = getBaseType(get_atttype(relid, get_attnum(relid, column)));
  if (type != INT2OID && type != INT4OID && type != INT8OID)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("\"%s\" is distributed by \"%s\", which is not an integer column", source_name, column),
                    errdetail("Training in place shuffles every shard by a keyed hash of an integer row key."),
                    errhint("Distribute the table by an integer surrogate key (e.g. a bigint id), or train on a local copy.")));
  // The passes read and cast these columns (as the reader): on the workers
  // the guard refuses a type whose casts may be a role's code (shard_guard.h);
  // refused here, before the charge, for the table itself.
  const char* columns[3] = {label, features, column};
  for (const char* c : columns)
    if (!builtin_column_type(get_atttype(relid, get_attnum(relid, c))))
      ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                      errmsg("column \"%s\" of \"%s\" has a type that training in place on a distributed table "
                             "does not read", c, source_name),
                      errdetail("The pushed-down passes read and cast it with the rights of the function's owner; "
                                "a type made by a role may have casts of that role's."),
                      errhint("Use a built-in type (e.g. text or float8[]) or a domain over one, or train on a "
                              "local copy.")));
}

// A plain table (not partitioned) without row security.
void check_distributed_relation(Oid relid, const char* source_name) {
  if (get_rel_relkind(relid) != RELKIND_RELATION)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("\"%s\" is a partitioned distributed table, which training in place does not support",
                           source_name),
                    errhint("Train on a local copy, or on one partition.")));
  if (has_row_security(relid))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("\"%s\" has row-level security, which training in place on a distributed table does not "
                           "support", source_name),
                    errdetail("The pushed-down passes read the shards with the rights of the function's owner."),
                    errhint("Train on a local copy of the rows the role may see.")));
}

// What the catalog can tell about "surrogate key": unique. Not unique
// (several rows per value) suggests data. A role that may read the table
// is warned and goes on (the guarantee rests on the assumption the
// metadata states); a role training without read access is refused,
// before the charge: it would get shard sizes that are a histogram of that
// column, and a guarantee that does not hold for it.
void check_surrogate_key(Oid relid, const char* column, const RunIdentities& ids, const char* source_name) {
  const bool unique = unique_by_itself(relid, get_attnum(relid, column));
  if (!unique && !ids.caller_reads)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("\"%s\" is distributed by \"%s\", which has no unique index: training on it in place "
                           "needs read access", source_name, column),
                    errdetail("Without a unique index the distribution column may hold data, and the shard sizes "
                              "the guarantee treats as public would reveal it."),
                    errhint("Ask the owner to distribute the table by a unique id (e.g. a bigint primary key).")));
  if (!unique)
    ereport(WARNING, (errmsg("the privacy guarantee on \"%s\" assumes that its distribution column \"%s\" is a "
                             "surrogate key", source_name, column),
                      errdetail("\"%s\" has no unique index. If it holds data, a neighbouring table may move a row "
                                "to another shard and change the shard sizes the guarantee treats as public.",
                                column),
                      errhint("Distribute the table by a unique id (e.g. a bigint primary key).")));
}

}  // namespace

void detect_distributed_source(Oid relid, const char* label, const char* features, const RunIdentities& ids,
                               PreparedData* prep) {
  prep->distributed = false;
  if (!citus_installed()) return;
  char* column = hash_distribution_column(relid);
  if (column == nullptr) return;  // a local, reference or Citus-local table: the copy path
  check_distribution_column(relid, label, features, column, prep->source_name);
  check_distributed_relation(relid, prep->source_name);
  check_surrogate_key(relid, column, ids, prep->source_name);
  // The shards' kind and row security are checked by the guard of every
  // statement that reads them (shard_guard.h), this one included.
  count_shard_rows(relid, ids, prep);
  prep->distributed = true;
  prep->distribution_column = column;
  prep->row_key = psprintf("%s::pg_catalog.int8", quote_identifier(column));
  prep->shard_guard = shard_guard_sql(relid);
  source_row_expressions(ids, prep);
  prep->shuffled = nullptr;
}

int64* count_part_rows(Oid relid, const RunIdentities& ids, const PreparedData& prep, const double* split_key,
                       int parts) {
  if (!prep.distributed) elog(ERROR, "dptrain: count_part_rows on a table that is not distributed");
  List* shards = shard_ids(relid);
  const int S = list_length(shards);
  if (S != prep.nshards) elog(ERROR, "dptrain: the shards of \"%s\" changed during the run", prep.source_name);
  std::string part;
  DPT_CORE({ part = dptrain::distributed::tuning_part_sql(prep.row_key, std::vector<double>(split_key, split_key + 4), parts); });
  const char* sql = psprintf(
      "SELECT %s.tableoid::pg_catalog.regclass::pg_catalog.text, %s, "
      "pg_catalog.count(*)::pg_catalog.int8 FROM ONLY %s AS %s WHERE %s GROUP BY 1, 2",
      kShardGuardAlias, part.c_str(), prep.source_name, kShardGuardAlias, prep.shard_guard);
  SourceRead source;
  source.source = relid;
  source.only = true;
  // kappa is not printed to a client without read access (pass_messages.h):
  // with it, every refusal before the charge naming a part's size would
  // be a free count of the keys in a subset the caller can compute; without it,
  // the part sizes of a fresh kappa depend on n alone (docs/tuning.md section 5).
  const bool hide = hide_pass_statements(ids.caller_reads);
  const int guc_level = hide ? begin_distributed_passes(true) : 0;
  const HiddenPasses hidden = hide ? hide_pass_statements_from_client() : HiddenPasses{};
  IdentitySwitch sw;
  switch_identity(&sw, ids.reader, true);
  const int rc = execute_checked(sql, 0, nullptr, nullptr, true, 0, source);
  restore_identity(&sw);
  if (hidden.level) show_pass_statements_again(hidden);
  if (guc_level) end_distributed_passes(guc_level);
  if (rc != SPI_OK_SELECT) elog(ERROR, "dptrain: SPI failed (%d) on: %s", rc, sql);
  int64* rows = static_cast<int64*>(palloc0(sizeof(int64) * S * parts));
  bool* seen = static_cast<bool*>(palloc0(sizeof(bool) * S * parts));
  bool isnull;
  for (uint64 r = 0; r < SPI_processed; ++r) {
    const char* name = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1);
    const int32 part = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull));
    const int64 n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 3, &isnull));
    const int s = shard_index(shards, name, prep.source_name);
    if (isnull || part < 1 || part > parts) elog(ERROR, "dptrain: a row of \"%s\" in no tuning part", prep.source_name);
    const int at = (part - 1) * S + s;
    if (seen[at]) refuse_foreign_rows(prep.source_name, name);
    seen[at] = true;
    rows[at] = n;
  }
  return rows;
}

int begin_distributed_passes(bool hidden) {
  const int level = NewGUCNestLevel();
  spi_exec("SET LOCAL citus.propagate_set_commands = 'local'", 0, nullptr, nullptr, SPI_OK_UTILITY);
  // After the caller's propagated SET LOCALs, which Citus sends first to
  // every worker transaction (the coordinator's own are off: pass_messages.h).
  if (hidden)
    for (const char* sql : {"SET LOCAL debug_print_parse = off", "SET LOCAL debug_print_rewritten = off",
                            "SET LOCAL debug_print_plan = off"})
      spi_exec(sql, 0, nullptr, nullptr, SPI_OK_UTILITY);
  spi_exec("SET LOCAL max_parallel_workers_per_gather = 0", 0, nullptr, nullptr, SPI_OK_UTILITY);
  // The pass input (a float8[] state: weights, step sizes, bounds) goes to
  // the shards as the text of the statement Citus sends, and each shard's
  // partial state comes back as text: printed with the session's
  // extra_float_digits, 0 or less rounded them to 15 digits or fewer, and
  // every pass of a run under such a setting was refused ("the epoch
  // returned a state of a different training configuration") -- after the
  // charge. 3: every float8 printed exactly (and propagated to the workers).
  spi_exec("SET LOCAL extra_float_digits = 3", 0, nullptr, nullptr, SPI_OK_UTILITY);
  return level;
}

// The settings above are SET LOCAL (Citus propagates those, with
// citus.propagate_set_commands = 'local'): AtEOXact_GUC(true, level) kept a
// SET LOCAL for the rest of the caller's transaction (a committed nest level
// hands it down to the level below), so after dp_evaluate on a Citus table
// the caller's own statements ran with extra_float_digits = 3, no parallel
// workers and Citus's SET propagation changed. Restored as on an abort.
void end_distributed_passes(int level) { AtEOXact_GUC(false, level); }

int execute_distributed_pass(const char* sql, Datum input, Oid relid) {
  Oid type[1] = {FLOAT8ARRAYOID};
  Datum values[1] = {input};
  SourceRead source;
  source.source = relid;
  source.only = true;
  return execute_checked(sql, 1, type, values, false, 1, source);
}

}  // namespace dptrain::pg
