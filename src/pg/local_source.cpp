#include "local_source.h"

extern "C" {
#include "catalog/pg_inherits.h"
}
#include "core/algorithms/algorithm.h"
#include "citus_read_barrier.h"
#include "shard_guard.h"
#include "distributed_source.h"
#include "statement_checks.h"

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
  // The passes read with the caller's rights (pass_role, training_run.h).
  const AttrNumber x = get_attnum(relid, features), y = get_attnum(relid, label);
  return can_read_columns(relid, y, x, ids.caller);
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
  // The pass names the source (schema.table) and runs as the extension
  // owner: parsed, it must read `relid` itself, ONLY (a child attached
  // during the run, ALTER TABLE ... INHERIT, could be a foreign table or
  // have policies), and nothing else by name (statement_checks.h: a schema
  // renamed during the run by another session, with a view of the same name
  // in its place, would run that view's functions as the extension owner).
  SourceRead source;
  source.source = relid;
  source.only = true;
  SPIPlanPtr plan = prepare_checked(sql, 1, type, CURSOR_OPT_PARALLEL_OK, source);
  Datum values[1] = {input};
  // read_only: the pass only reads, and every statement sees `snapshot`.
  // No row limit (tcount 0): with one, the executor runs the plan without
  // its parallel workers (measured: "Workers Launched: 0"); the pass returns
  // one row anyway.
  const int rc = run_reading(
      relid, plan_calls_shard_guard(plan), [&] { return SPI_execute_snapshot(plan, values, nullptr, snapshot, InvalidSnapshot, true, false, 0); });
  SPI_freeplan(plan);
  return rc;
}

}  // namespace dptrain::pg
