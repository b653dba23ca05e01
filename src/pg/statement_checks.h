// Statements that name a user's relation by text (docs/governance.md,
// "Names resolved again").
//
// dptrain receives the source of a run, or the table to evaluate on, as a
// regclass: an OID, resolved once when the call began. Its SQL has to name
// that relation as text (schema.table), and PostgreSQL resolves the text
// again every time it parses a statement. The lock dptrain holds on the
// relation (from its first statement on) keeps the relation from being
// renamed or dropped, but not its schema from being renamed by another
// session and replaced by a schema of the same name whose "table" is a
// view or holds functions: that object's code would then run with the
// rights of whoever executes the statement (the caller, the relation's
// owner inside a security-restricted operation, or the extension owner).
// Before its first statement dptrain holds no lock at all, so even the first
// parse may find another object.
//
// So every such statement is prepared, its analysed (and rewritten) query
// tree is checked to read the expected relation, by OID, and nothing else
// by name, and only then executed, without a parse in between.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// What a statement may read.
struct SourceRead {
  Oid source = InvalidOid;  // the relation the statement names (by its OID)
  // For the error: "the source of the run", "the table to evaluate on".
  const char* what = "the source of the run";
  // A plain heap table read ONLY (no inheritance child, no view): the passes
  // read in place as the extension owner (local_source.h). Otherwise the
  // source may be any relation dp_train accepts, its children are read as
  // PostgreSQL expands them (by OID, from pg_inherits), and a view's or
  // policy's own definition (stored by OID) is not looked into.
  bool only = false;
  // The one table an INSERT ... SELECT may write (the run's temp table).
  Oid insert_target = InvalidOid;
};

// SPI_prepare_cursor(sql, ...) and the check above: ERROR 55000 (hint: was
// its schema renamed?) if the statement as parsed now reads another relation
// by name, a relation other than r.source (or its expansion), or calls a
// function outside pg_catalog and the extension's schema in its own text.
// Execute the plan at once, under the same role, search_path and
// row_security (a change of one of them makes PostgreSQL analyse the text
// again: statement_checks.cpp), then free it with SPI_freeplan; never keep
// it (SPI_keepplan: a saved plan is analysed again after invalidations).
// Requires SPI_connect().
SPIPlanPtr prepare_checked(const char* sql, int nargs, Oid* types, int cursor_options, const SourceRead& r);

// Prepare (parallel workers allowed), check, execute (SPI_execute_plan with
// no NULL argument), free: the checked counterpart of SPI_execute_with_args.
// Returns SPI's code.
int execute_checked(const char* sql, int nargs, Oid* types, Datum* values, bool read_only, long tcount,
                    const SourceRead& r);

// Whether `e` is this check's refusal of a statement before it ran, raised
// since the last forget (and forget it). reading_errors.cpp passes it on: it
// says nothing about a row. A refusal raised while a checked statement runs
// does not count: it comes from code that statement ran (a view's or a
// policy's: the owner's), on the rows that code chose, which may also catch
// it and raise something else.
bool take_statement_refusal(const ErrorData* e);
void forget_statement_refusal();

// Around the execution of a checked statement (run_reading,
// citus_read_barrier.h).
void begin_checked_execution();
void end_checked_execution();

}  // namespace dptrain::pg
