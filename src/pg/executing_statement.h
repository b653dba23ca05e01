// The statement whose executor is evaluating an expression
// (shard_guard.h: the guard of a read of a Citus table checks, on each
// node, every relation the statement it is part of reads there).
//
// PostgreSQL gives a function no pointer to the plan it runs in. So the
// library keeps one: an ExecutorRun hook (installed when the library is
// loaded, which for a statement calling one of its C functions happens in
// that statement's ExecutorStart, before its ExecutorRun) records the
// QueryDesc being run, innermost first, and restores the outer one when it
// returns or fails.
#pragma once

#include "pg_glue.h"

extern "C" {
#include "executor/execdesc.h"
}

namespace dptrain::pg {

// Installs the hook (once, from _PG_init).
void install_executing_statement_hook();

// The statement being run whose plan holds the expression node `expr`
// (an FmgrInfo's fn_expr), or nullptr: it is not run by an executor this
// library saw start its run (planning-time evaluation, for one).
const PlannedStmt* statement_holding(const Node* expr);

}  // namespace dptrain::pg
