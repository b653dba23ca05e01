// No unguarded read of a Citus table while dptrain reads a source that is
// not one (docs/governance.md, "A view over a Citus table is refused").
//
// Every read of a Citus table's shards carries the guard (shard_guard.h),
// which each worker checks before any row. That holds for the statements
// dptrain writes, which name the Citus table itself. A source that is not a
// Citus table may still read one through code the catalog does not show: a
// function its view's FROM or a policy calls (a PL/pgSQL body, or a SQL
// body PostgreSQL inlines into the statement), whose statements name the
// Citus table with no guard. Measured before this barrier: a superuser's
// dp_train on `CREATE VIEW v AS SELECT * FROM f()`, f reading a distributed
// table, ran a worker's impostor at a shard's name as the superuser
// (test/citus/dp_train_in_place.sh). citus_table_behind refuses what the
// catalog shows before the charge; this refuses the rest when it runs.
//
// A Citus source's own code may too: a reference table's policy calling
// such a function runs in this session when Citus reads the coordinator's
// placement (measured: a reader's dp_train read another distributed
// table's shards unguarded). So the barrier holds for a Citus source as
// well, the source and its partitions excepted -- only in a statement that
// carries the guard (shard_guard.h). A statement written for a local table
// reads it unguarded if its owner distributes it during the run
// (create_distributed_table takes no lock the run's conflicts with;
// measured: the in-place passes of a superuser's AMP run then read a shard
// its owner had replaced by a view on a worker, whose function ran as the
// superuser): refused.
//
// So while dptrain executes a statement reading a source, every
// statement whose executor starts in this backend (the statement itself, a
// function's statement within it, a Citus subplan) is refused (0A000)
// before it starts if its range table holds a Citus table: Citus keeps the
// original range table in the plans it makes (for permission checks), and
// an inlined SQL function's relations are in the flattened one. A cached
// plan is checked too: the check is at ExecutorStart, not in the planner;
// so is EXPLAIN without ANALYZE (Citus runs EXPLAIN on a worker, whose
// planning of the shard's query runs code). And every command (utility
// statement) but those whose reads reach the executor (EXPLAIN, DO, CALL,
// cursors, prepared statements, CREATE TABLE AS) or that read no table
// (SET, SHOW, NOTIFY, a temporary table's CREATE TABLE) is refused too:
// Citus runs TRUNCATE, ALTER TABLE, ANALYZE, COPY, ... on the shards or on
// the workers' copies of the table, where a relation put at that name runs
// its code (a TRUNCATE trigger, measured) as the caller.
//
// Not covered: a function that runs SQL on the workers by text
// (run_command_on_shards with a computed table name, dblink, a loopback
// foreign table) -- no relation in a range table; and a parallel worker's
// statements (a function the owner marked PARALLEL SAFE; Citus cannot run
// a distributed query in a parallel worker: measured, it fails); and a
// Citus source's policy run on a worker (its placement read there), whose
// function's distributed query that worker plans itself (Citus refuses it
// unless the function sets citus.allow_nested_distributed_execution,
// measured).
#pragma once

#include "pg_glue.h"
#include "statement_checks.h"

namespace dptrain::pg {

// Enters the barrier for a statement that reads `source`, unless Citus is
// not installed; a Citus source and its partitions may be read if the
// statement is `guarded` (plan_calls_shard_guard).
// Returns whether it entered; the caller leaves it (below) if so, also on
// error (see run_reading).
bool enter_citus_read_barrier(Oid source, bool guarded);
void leave_citus_read_barrier();

// execute() -- the execution of a statement that reads `source`, `guarded`
// or not -- inside the barrier. F must own no resource (the longjmp of an ERROR crosses it).
template <typename F>
int run_reading(Oid source, bool guarded, F execute) {
  const bool entered = enter_citus_read_barrier(source, guarded);
  int rc = 0;
  begin_checked_execution();
  PG_TRY();
  { rc = execute(); }
  PG_FINALLY();
  {
    end_checked_execution();
    if (entered) leave_citus_read_barrier();
  }
  PG_END_TRY();
  return rc;
}

// Installs the ExecutorStart hook (once, from _PG_init).
void install_citus_read_barrier_hook();

}  // namespace dptrain::pg
