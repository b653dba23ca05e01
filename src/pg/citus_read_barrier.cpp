#include "citus_read_barrier.h"

extern "C" {
#include "access/genam.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "executor/executor.h"
#include "tcop/cmdtag.h"
#include "tcop/utility.h"
}

#include "shard_guard.h"

namespace dptrain::pg {
namespace {

ExecutorStart_hook_type previous_start = nullptr;
ProcessUtility_hook_type previous_utility = nullptr;

// Inside the barrier: how deep (a read within a read), the source of the
// outermost read, and the Citus tables (their OIDs, ascending), read once
// when it was entered.
int depth = 0;
Oid reading = InvalidOid;
List* exempt = NIL;  // a Citus source and its partitions (TopMemoryContext)
Oid* citus_tables = nullptr;
int ncitus_tables = 0;

int compare_oids(const void* a, const void* b) {
  const Oid x = *static_cast<const Oid*>(a), y = *static_cast<const Oid*>(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

// Every logicalrelid of pg_dist_partition (Citus's catalog of its tables:
// distributed, reference, Citus-local, their partitions), in TopMemoryContext;
// false if Citus is not installed in this database. Read directly (no SPI:
// the caller is between preparing and executing its statement).
bool load_citus_tables() {
  const Oid catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
  if (!OidIsValid(catalog)) return false;
  Relation rel = table_open(catalog, AccessShareLock);
  const TupleDesc desc = RelationGetDescr(rel);
  const int column = 1;  // logicalrelid
  if (desc->natts < column || TupleDescAttr(desc, column - 1)->atttypid != REGCLASSOID)
    elog(ERROR, "dptrain: pg_dist_partition has no logicalrelid column first");
  int capacity = 16, n = 0;
  Oid* oids = static_cast<Oid*>(MemoryContextAlloc(TopMemoryContext, sizeof(Oid) * capacity));
  SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 0, nullptr);
  HeapTuple t;
  while (HeapTupleIsValid(t = systable_getnext(scan))) {
    bool isnull;
    const Datum d = heap_getattr(t, column, desc, &isnull);
    if (isnull) continue;
    if (n == capacity) {
      capacity *= 2;
      oids = static_cast<Oid*>(repalloc(oids, sizeof(Oid) * capacity));
    }
    oids[n++] = DatumGetObjectId(d);
  }
  systable_endscan(scan);
  table_close(rel, AccessShareLock);
  qsort(oids, n, sizeof(Oid), compare_oids);
  citus_tables = oids;
  ncitus_tables = n;
  return true;
}

bool is_listed(Oid relid) {
  return bsearch(&relid, citus_tables, ncitus_tables, sizeof(Oid), compare_oids) != nullptr;
}

void forget_citus_tables() {
  if (citus_tables) pfree(citus_tables);
  citus_tables = nullptr;
  ncitus_tables = 0;
}

void refuse_citus_reads(const PlannedStmt* statement) {
  ListCell* lc;
  foreach (lc, statement->rtable) {
    const RangeTblEntry* rte = lfirst_node(RangeTblEntry, lc);
    if (rte->rtekind != RTE_RELATION || !is_listed(rte->relid) || list_member_oid(exempt, rte->relid)) continue;
    if (rte->relid == reading) {
      const char* source = get_rel_name(reading);
      ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                      errmsg("\"%s\" became a Citus table during the run", source ? source : "?"),
                      errdetail("dptrain's statements read it as the table it was when the run began, without the "
                                "check each worker makes for dptrain's reads of a Citus table."),
                      errhint("Call again: a new run reads it as a Citus table.")));
    }
    refuse_citus_read(reading, rte->relid,
                      "A statement run while dptrain read it (in a function its view or a policy calls, say) reads "
                      "the Citus table, whose shards it would read without the check each worker makes for "
                      "dptrain's own reads.");
  }
}

// EXPLAIN without ANALYZE too: Citus explains a distributed plan's task by
// running EXPLAIN on a worker, which plans the shard's query there -- and
// planning runs code (an IMMUTABLE function of a view at the shard's name,
// measured: it ran as the superuser whose dp_train read a view over a
// function that ran EXPLAIN).
void start(QueryDesc* desc, int eflags) {
  if (depth > 0) refuse_citus_reads(desc->plannedstmt);
  if (previous_start) previous_start(desc, eflags);
  else standard_ExecutorStart(desc, eflags);
}

// The commands whose reads reach the executor (checked above): EXPLAIN,
// DO and CALL (their statements), prepared statements and cursors, CREATE
// TABLE AS; and those that read no table: SET, SHOW, NOTIFY, a temporary
// table's CREATE TABLE (Citus leaves temporary tables local).
bool command_reads_through_executor(const Node* statement) {
  switch (nodeTag(statement)) {
    case T_ExplainStmt:
    case T_DoStmt:
    case T_CallStmt:
    case T_PrepareStmt:
    case T_ExecuteStmt:
    case T_DeallocateStmt:
    case T_DeclareCursorStmt:
    case T_FetchStmt:
    case T_ClosePortalStmt:
    case T_CreateTableAsStmt:
    case T_VariableSetStmt:
    case T_VariableShowStmt:
    case T_NotifyStmt:
      return true;
    case T_CreateStmt:
      return castNode(CreateStmt, statement)->relation->relpersistence == RELPERSISTENCE_TEMP;
    default:
      return false;
  }
}

// Any other command the source's code runs is refused: Citus runs many on
// the shards or on the workers' copies of a table (TRUNCATE, ALTER TABLE,
// ANALYZE, COPY), where a relation put at that name runs its code (a
// TRUNCATE trigger, a CHECK constraint of a rewrite, a policy of COPY TO)
// as the caller -- measured: a view's function's TRUNCATE of a distributed
// table ran a worker's impostor's trigger as the superuser whose dp_train
// read the view.
void utility(PlannedStmt* statement, const char* text, bool read_only_tree, ProcessUtilityContext context,
             ParamListInfo params, QueryEnvironment* env, DestReceiver* dest, QueryCompletion* qc) {
  if (depth > 0 && !command_reads_through_executor(statement->utilityStmt)) {
    const char* source = get_rel_name(reading);
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("\"%s\" runs the command %s while dptrain reads it", source ? source : "?",
                           GetCommandTagName(CreateCommandTag(statement->utilityStmt))),
                    errdetail("In a database with Citus, a command run by a source's code (a function its view or a "
                              "policy calls, say) may reach a Citus table's shards without the check each worker "
                              "makes for dptrain's own reads."),
                    errhint("Run the command before training; the source's code may only query.")));
  }
  if (previous_utility)
    previous_utility(statement, text, read_only_tree, context, params, env, dest, qc);
  else
    standard_ProcessUtility(statement, text, read_only_tree, context, params, env, dest, qc);
}

}  // namespace

bool enter_citus_read_barrier(Oid source, bool guarded) {
  if (depth > 0) {
    ++depth;
    return true;
  }
  if (!load_citus_tables()) return false;
  // A guarded read of a Citus source (shard_guard.h) reads the source and
  // its partitions; any other Citus table read meanwhile (by a function its
  // row-security policy calls, run here by Citus's local execution of a
  // reference table's placement, say) is not guarded. A statement without
  // the guard was written for a table that was not a Citus table then (its
  // owner distributed it during the run): reading it is refused.
  if (guarded && is_listed(source)) {
    MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
    exempt = find_all_inheritors(source, NoLock, nullptr);
    MemoryContextSwitchTo(old);
  }
  reading = source;
  depth = 1;
  return true;
}

void leave_citus_read_barrier() {
  if (--depth > 0) return;
  depth = 0;
  reading = InvalidOid;
  list_free(exempt);
  exempt = NIL;
  forget_citus_tables();
}

void install_citus_read_barrier_hook() {
  previous_start = ExecutorStart_hook;
  ExecutorStart_hook = start;
  previous_utility = ProcessUtility_hook;
  ProcessUtility_hook = utility;
}

}  // namespace dptrain::pg
