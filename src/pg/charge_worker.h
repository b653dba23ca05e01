// Charging a private run in a transaction of its own (an autonomous
// transaction through a background worker), committed before the run reads
// any data. A charge made in the caller's transaction could be rolled back
// after the model had been seen -- ROLLBACK, a savepoint, an exception
// block, a statement failing after the row was sent -- and the run was free;
// and a refusal after reading the data (bad rows, a failing view) would be a
// free answer about the data. Committed up front, a charge is never undone.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

struct DurableCharge {
  Oid runner;               // connects as (the extension owner)
  Oid relid;
  const char* source_name;  // schema.table, for the record
  Oid role;                 // whose budget
  bool reader;              // the role may read the data itself
  const char* algorithm;
  double epsilon;
  double delta;
};

// Runs dptrain.ledger_reserve(...) in a background worker connected to this
// database as `runner`, waits for it to commit, and returns the model id it
// reserved. The charge is flushed to disk (and to synchronous standbys)
// before this returns, whatever synchronous_commit the database, the runner
// or the caller set.
// Its errors (42501, DP001, DP002, 55P03 of lock_timeout, ...) are re-raised
// here with their SQLSTATE and a context line saying they come from the
// charge and whether anything was charged.
// If the worker waits for a lock this transaction holds (e.g. the caller
// changed the budget or cap in the same transaction), it is stopped and the
// call fails with 55P03 instead of waiting forever.
int64 charge_durably(const DurableCharge& charge);

}  // namespace dptrain::pg
