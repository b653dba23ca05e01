#include "executing_statement.h"
#include "tree_walker.h"

#include "citus_read_barrier.h"
#include "shard_guard.h"

extern "C" {
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "tcop/pquery.h"
}

namespace dptrain::pg {
namespace {

ExecutorRun_hook_type previous_run = nullptr;
QueryDesc* running = nullptr;  // innermost statement in ExecutorRun

using dptrain::pg::walker;  // tree_walker.h

bool is_target(Node* node, void* target) {
  if (node == nullptr) return false;
  if (node == target) return true;
  return expression_tree_walker(node, walker(is_target), target);
}

// Whether a plan node's own expressions hold `target` (the guard is a qual:
// a scan's or a Result's one-time filter), or those of a node below it.
bool plan_holds(PlanState* ps, void* target) {
  if (ps == nullptr) return false;
  const Plan* plan = ps->plan;
  if (is_target(reinterpret_cast<Node*>(plan->qual), target) ||
      is_target(reinterpret_cast<Node*>(plan->targetlist), target))
    return true;
  if (IsA(plan, Result) && is_target(reinterpret_cast<const Result*>(plan)->resconstantqual, target)) return true;
  return planstate_tree_walker(ps, walker(plan_holds), target);
}

void run(QueryDesc* desc, ScanDirection direction, uint64 count, bool execute_once) {
  QueryDesc* outer = running;
  running = desc;
  PG_TRY();
  {
    if (previous_run) previous_run(desc, direction, count, execute_once);
    else standard_ExecutorRun(desc, direction, count, execute_once);
  }
  PG_FINALLY();
  { running = outer; }
  PG_END_TRY();
}

}  // namespace

void install_executing_statement_hook() {
  previous_run = ExecutorRun_hook;
  ExecutorRun_hook = run;
}

const PlannedStmt* statement_holding(const Node* expr) {
  void* target = const_cast<Node*>(expr);
  if (expr == nullptr || running == nullptr || running->planstate == nullptr) return nullptr;
  return plan_holds(running->planstate, target) ? running->plannedstmt : nullptr;
}

}  // namespace dptrain::pg

extern "C" {

// Loaded by the first call of one of the library's functions in a backend
// (or, for a statement calling the shard guard, in that statement's
// ExecutorStart), before any ExecutorRun that could evaluate the guard.
void _PG_init(void) {
  dptrain::pg::install_executing_statement_hook();
  dptrain::pg::install_shard_guard_planner_hook();
  dptrain::pg::install_citus_read_barrier_hook();
}

}  // extern "C"
