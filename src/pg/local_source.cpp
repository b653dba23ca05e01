#include "local_source.h"

extern "C" {
#include "catalog/pg_inherits.h"
#include "utils/plancache.h"
}
#include "core/algorithms/algorithm.h"
#include "distributed_source.h"

namespace dptrain::pg {

namespace {

// A heap table whose reading runs nobody's code: no view, foreign or
// partitioned table, no row security, no inheritance children (a child could
// be a foreign table or have policies of its own).
bool plain_heap_table(Oid relid) {
  HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for relation %u", relid);
  const Form_pg_class c = reinterpret_cast<Form_pg_class>(GETSTRUCT(t));
  const bool plain = c->relkind == RELKIND_RELATION && !c->relrowsecurity && !c->relforcerowsecurity;
  ReleaseSysCache(t);
  return plain && !has_subclass(relid);
}

bool reads_sums_only(const std::string& algorithm) {
  bool sums = false;
  DPT_CORE({ sums = dptrain::make_algorithm(algorithm)->reads_sums_only(); });
  return sums;
}

// The pass statement names the source (schema.table), and PostgreSQL
// resolves that name again whenever it parses a pass, as the runner and
// outside a security-restricted operation. Only the lock on the relation
// (taken while the data was inspected) is held: it keeps the table from
// being renamed, dropped or given policies, but not its schema from being
// renamed by another session and replaced by one whose "table" is a view,
// whose functions would run with the runner's rights; ALTER TABLE INHERIT
// could also add a child concurrently. So the analysed statement must read
// `relid` itself, ONLY (no child), as its one range-table entry; the plan
// is executed right after this check, so nothing re-parses it in between
// (the lock on `relid` is already held: no invalidation is processed).
void require_pass_reads_only(SPIPlanPtr plan, Oid relid) {
  ListCell* s;
  foreach (s, SPI_plan_get_plan_sources(plan)) {
    const CachedPlanSource* source = static_cast<const CachedPlanSource*>(lfirst(s));
    ListCell* q;
    foreach (q, source->query_list) {
      const Query* query = lfirst_node(Query, q);
      const RangeTblEntry* rte = list_length(query->rtable) == 1 ? linitial_node(RangeTblEntry, query->rtable) : nullptr;
      const bool ok = query->commandType == CMD_SELECT && rte != nullptr && rte->rtekind == RTE_RELATION &&
                      rte->relid == relid && rte->relkind == RELKIND_RELATION && !rte->inh;
      if (!ok)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the source of the run no longer names table \"%s\"", get_rel_name(relid)),
                        errdetail("A pass read in place must read that table and nothing else."),
                        errhint("Was its schema renamed during training?")));
    }
  }
}

}  // namespace

bool algorithm_is_order_free(const std::string& algorithm) {
  bool free = false;
  DPT_CORE({ free = dptrain::make_algorithm(algorithm)->order_free(); });
  return free;
}

bool can_read_in_place(Oid relid, const char* label, const char* features, const dptrain::TrainingConfig& c, const RunIdentities& ids,
                       const PreparedData& prep) {
  if (prep.distributed || prep.columns != nullptr || !ids.caller_reads) return false;
  if (!reads_sums_only(c.algorithm) || !plain_heap_table(relid) || is_citus_table(relid)) return false;
  // The passes read with the runner's rights (the header): it must hold them.
  const AttrNumber x = get_attnum(relid, features), y = get_attnum(relid, label);
  return can_read_columns(relid, y, x, ids.runner);
}

void read_in_place(const RunIdentities& ids, PreparedData* prep) {
  source_row_expressions(ids, prep);
  prep->row_key = pstrdup("");  // exact sums: no keyed order
  prep->in_place = true;
  prep->shuffled = nullptr;
}

Snapshot begin_in_place_passes() { return RegisterSnapshot(GetTransactionSnapshot()); }

void end_in_place_passes(Snapshot snapshot) { UnregisterSnapshot(snapshot); }

int execute_in_place_pass(const char* sql, Datum input, Snapshot snapshot, Oid relid) {
  Oid type[1] = {FLOAT8ARRAYOID};
  SPIPlanPtr plan = SPI_prepare_cursor(sql, 1, type, CURSOR_OPT_PARALLEL_OK);
  if (plan == nullptr) elog(ERROR, "dptrain: could not plan a pass: %s", SPI_result_code_string(SPI_result));
  require_pass_reads_only(plan, relid);
  Datum values[1] = {input};
  // read_only: the pass only reads, and every statement sees `snapshot`.
  // No row limit (tcount 0): with one, the executor runs the plan without
  // its parallel workers (measured: "Workers Launched: 0"); the pass returns
  // one row anyway.
  const int rc = SPI_execute_snapshot(plan, values, nullptr, snapshot, InvalidSnapshot, true, false, 0);
  SPI_freeplan(plan);
  return rc;
}

}  // namespace dptrain::pg
