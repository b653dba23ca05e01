#include "reading_errors.h"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "executor/instrument.h"
#include "tcop/tcopprot.h"
#include "utils/portal.h"
#include "utils/resowner.h"
}

#include "distributed_source.h"
#include "ledger.h"
#include "pass_messages.h"
#include "reading_settings.h"
#include "shard_guard.h"
#include "statement_checks.h"
#include "training_spi.h"

namespace dptrain::pg {
namespace {

struct Statement {
  Oid role;
  Oid relid;
  const char* sql;
  int nargs;
  Oid* types;
  Datum* values;
  int expected;
};

void exec_statement(void* arg) {
  const Statement* st = static_cast<const Statement*>(arg);
  // `sql` names `relid` by text: checked before it runs (statement_checks.h).
  spi_exec_as_reader(st->role, source_read(st->relid), st->sql, st->nargs, st->types, st->values, st->expected);
}

// Runs body(arg) in an internal subtransaction, as PL/pgSQL runs an
// exception block; returns the error (copied, the subtransaction rolled
// back) or nullptr. No C++ object with a destructor lives in these frames
// (pg_glue.h): the longjmp of an ERROR crosses them.
ErrorData* run_catching(void (*body)(void*), void* arg) {
  MemoryContext context = CurrentMemoryContext;
  ResourceOwner owner = CurrentResourceOwner;
  ErrorData* volatile failure = nullptr;
  BeginInternalSubTransaction(nullptr);
  MemoryContextSwitchTo(context);
  PG_TRY();
  {
    body(arg);
    ReleaseCurrentSubTransaction();
    MemoryContextSwitchTo(context);
    CurrentResourceOwner = owner;
  }
  PG_CATCH();
  {
    // The abort also restores the user id and the GUCs switch_identity set.
    MemoryContextSwitchTo(context);
    failure = CopyErrorData();
    FlushErrorState();
    RollbackAndReleaseCurrentSubTransaction();
    MemoryContextSwitchTo(context);
    CurrentResourceOwner = owner;
  }
  PG_END_TRY();
  return failure;
}

// The owner's code in the source (a view's or a policy's functions) runs
// with the owner's rights in the caller's session, whose temporary schema
// the caller fills. PostgreSQL looks relations and types up in pg_temp:
// last under dptrain's search_path (so a name the owner's function leaves
// unqualified that pg_catalog lacks lands there), and *first* under a
// function's own `SET search_path = clinic`, which does not list pg_temp
// (docs/governance.md, "The caller's temporary schema"). A temporary view
// of the caller named like a table the owner's function reads, calling a
// temporary function, would run the caller's code as the owner: it may read
// every row and say it in a NOTICE. So a run without read access is refused
// while the session's temporary schema holds a relation or type whose owner
// lacks the privileges of the role the source is read as (dptrain's own
// copies belong to the runner, a superuser; a superuser's objects are
// harmless: it may read the rows anyway); the caller's code
// cannot create one later in the call (the owner's code runs in a
// security-restricted operation). Checked before each read: the first comes
// before the charge, so a refusal costs nothing. It depends on the session
// only, never on a row.
void refuse_callers_temp_objects(const RunIdentities& ids) {
  Oid temp = InvalidOid, temp_toast = InvalidOid;
  GetTempNamespaceState(&temp, &temp_toast);
  if (!OidIsValid(temp)) return;
  Oid types[2] = {OIDOID, OIDOID};
  Datum values[2] = {ObjectIdGetDatum(temp), ObjectIdGetDatum(ids.reader)};
  if (SPI_execute_with_args(
          "SELECT o.name FROM (SELECT c.relname::pg_catalog.text AS name FROM pg_catalog.pg_class c "
          "WHERE c.relnamespace OPERATOR(pg_catalog.=) $1 AND NOT pg_catalog.pg_has_role(c.relowner, $2, 'USAGE') "
          "UNION ALL SELECT t.typname::pg_catalog.text FROM pg_catalog.pg_type t "
          "WHERE t.typnamespace OPERATOR(pg_catalog.=) $1 AND NOT pg_catalog.pg_has_role(t.typowner, $2, 'USAGE')) o "
          "LIMIT 1",
          2, types, values, nullptr, true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not list the session's temporary objects");
  if (SPI_processed == 0) return;
  const char* name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
  ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                  errmsg("a run without read access cannot use a session with temporary objects"),
                  errdetail("The owner's code reads the relation with the owner's rights in this session, where "
                            "the temporary object \"%s\" could take the place of one it names.",
                            name ? name : "?"),
                  errhint("Drop them first (DISCARD TEMP), or train from a new session.")));
}

// A SERIALIZABLE transaction takes a predicate lock (SIReadLock) on every
// tuple, page or relation its reads touch, and pg_locks shows them to every
// role -- the caller's own session too, and they outlive a ROLLBACK TO
// SAVEPOINT. A read as the owner would show which tuples of the owner's
// tables its view or policy code visited as the rows decided (the registry
// entries of the source's patients, by index lookup), also from the count
// before the charge, which a public refusal then ends for free. So a run
// without read access is refused in such a transaction before its first read:
// the isolation level is the caller's own choice, never a fact of the rows.
void refuse_serializable_read(Oid relid) {
  if (!IsolationIsSerializable()) return;
  ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                  errmsg("a run without read access to \"%s\" cannot run in a SERIALIZABLE transaction",
                         get_rel_name(relid)),
                  errdetail("A serializable read leaves predicate locks on the tuples the owner's code visits, "
                            "which pg_locks shows to every role. Nothing was charged."),
                  errhint("Train in a REPEATABLE READ or READ COMMITTED transaction.")));
}

// The names of the cursors (portals) open in the session.
List* open_cursor_names() {
  if (SPI_execute("SELECT name FROM pg_catalog.pg_cursor()", true, 0) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not list the session's cursors");
  List* names = NIL;
  for (uint64 r = 0; r < SPI_processed; ++r)
    names = lappend(names, SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1));
  return names;
}

bool has_name(List* names, const char* name) {
  ListCell* lc;
  foreach (lc, names) {
    if (strcmp(static_cast<const char*>(lfirst(lc)), name) == 0) return true;
  }
  return false;
}

// A cursor the owner's code OPENed and did not CLOSE (PL/pgSQL leaves it to
// the end of the transaction) outlived the read: the caller listed it in
// pg_cursors, the owner's statement with a row's value inlined, and FETCHed
// the rest of its rows with the owner's rights -- a table it may not read
// (security_owner_cursors.sql). A read that fails drops its cursors with its
// subtransaction; one that succeeds closes those it opened. The caller's own
// cursors, open before the read, stay.
void close_cursors_opened_since(List* before) {
  // (the read's result stays the caller's to take: SPI_tuptable)
  SPITupleTable* const result = SPI_tuptable;
  const uint64 processed = SPI_processed;
  List* after = open_cursor_names();
  SPI_tuptable = result;
  SPI_processed = processed;
  ListCell* lc;
  foreach (lc, after) {
    const char* name = static_cast<const char*>(lfirst(lc));
    if (has_name(before, name)) continue;
    Portal portal = SPI_cursor_find(name);
    if (portal != nullptr && portal->status != PORTAL_ACTIVE) SPI_cursor_close(portal);
  }
}

// PostgreSQL's cancel (statement_timeout, pg_cancel_backend, a cancel the
// caller sent): raised by ProcessInterrupts, whatever language it is in.
bool is_interrupt(const ErrorData* e) {
  return e->sqlerrcode == ERRCODE_QUERY_CANCELED && e->message != nullptr && e->funcname != nullptr &&
         strcmp(e->funcname, "ProcessInterrupts") == 0;
}

// The shard guard's refusal (shard_guard.h) of a read of `relid`, by its
// SQLSTATE and fixed message, raised on this node or relayed from a worker
// by Citus. Its detail and hint name relations, functions and types: the
// catalog of a node. Only dptrain's reads of a Citus source carry the guard
// (no owner's code runs in them for a role without read access: a view over
// a Citus table or row security is refused); for any other source it came
// from a statement of the owner's code that named dptrain.shard_guard, on
// the rows that code chose.
bool is_shard_refusal(const ErrorData* e, Oid relid) {
  return e->sqlerrcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE && e->message != nullptr &&
         strcmp(e->message, kShardGuardRefusal) == 0 && is_citus_table(relid);
}

// A refusal about the catalog raised again with its SQLSTATE, message, detail
// and hint only: not its CONTEXT (below, in run_hiding_errors).
pg_attribute_noreturn() void raise_refusal_again(const ErrorData* e) {
  ereport(ERROR, (errcode(e->sqlerrcode), errmsg_internal("%s", e->message),
                  e->detail ? errdetail_internal("%s", e->detail) : 0, e->hint ? errhint("%s", e->hint) : 0));
}

}  // namespace

void run_hiding_errors(const RunIdentities& ids, Oid relid, void (*body)(void*), void* arg) {
  if (ids.caller_reads) {
    body(arg);
    return;
  }
  refuse_serializable_read(relid);
  refuse_callers_temp_objects(ids);
  // Looked at again before every read as the owner, not only when the call
  // began: row security or security_invoker the owner set since is refused
  // (42501, a fact of the catalog) before a row is read.
  refuse_owner_read_of_invoker_rules(relid, get_rel_name(relid), ids.caller);
  forget_statement_refusal();
  // Not only its errors would print a row: the owner's code runs in this
  // session, and its RAISE NOTICE / WARNING / INFO, or PostgreSQL's own
  // notices on a value (to_tsvector's "word is too long to be indexed"),
  // reached the client whatever it set (INFO ignores client_min_messages),
  // also from the count before the charge, which a public refusal can then
  // end uncharged (dp_tune's part sizes). While the source is read nothing
  // goes to the client; the server log keeps what log_min_messages lets
  // through, for the DBA. (dptrain's own messages of a run are raised
  // outside these reads.) run_catching returns on every ERROR, so the
  // destination is always put back here.
  const CommandDest client = whereToSendOutput;
  if (whereToSendOutput == DestRemote) whereToSendOutput = DestNone;
  // Nor are the read's statistics kept: the owner's view or policy reads
  // its tables as the owner's code decides (a join, an index scan per
  // row), and the counters of those tables -- in this transaction
  // (pg_stat_get_xact_*), or cluster-wide after it -- would count rows that
  // depend on the data (test/tap/009_pass_count_hidden.pl). As for the
  // passes (pass_messages.h), not in a superuser's session, which could read
  // the rows anyway (and whose tests count the copy's temp files).
  const int stats_level = NewGUCNestLevel();
  const bool hidden = hide_pass_statements(ids.caller_reads);
  if (hidden) stop_statement_statistics();
  // Nor do the caller's settings change what the owner's code does
  // (reading_settings.h).
  pin_reading_settings();
  // Nor the blocks it reads: the buffer usage of the caller's statement
  // (EXPLAIN (ANALYZE, BUFFERS), pg_stat_statements) would count the owner's
  // code reading as the data decides (pass_messages.h).
  List* cursors = open_cursor_names();
  const BufferUsage buffers = pgBufferUsage;
  ErrorData* failure = run_catching(body, arg);
  if (hidden) pgBufferUsage = buffers;
  AtEOXact_GUC(false, stats_level);
  whereToSendOutput = client;
  if (failure == nullptr) {
    close_cursors_opened_since(cursors);
    return;
  }
  // A cancel (or statement_timeout) says nothing about the rows: it passes
  // as a cancel, uncharged (below); so does a statement refused before it ran
  // because the relation's name now finds another object
  // (statement_checks.h), and a node's shard guard (shard_guard.h): the
  // catalog of a worker.
  //
  // Each passes as a fresh error, with dptrain's context: the report caught
  // here carries the CONTEXT of where it was raised, and the owner's code
  // may be running there -- a statement it built with EXECUTE format('...
  // %L', v) holds the row's value (measured: a statement_timeout during the
  // count printed "SQL statement "SELECT ok FROM clinic.consents WHERE name
  // = 'patient 21: HIV+'"", uncharged, and each timeout another row; a
  // statement of the owner's code naming dptrain.shard_guard is refused by
  // the guard's planner hook, its text in the CONTEXT).
  // Only PostgreSQL's own cancel (ProcessInterrupts, also when the owner's
  // code re-raised it): a 57014 the owner's code raises itself, on a row it
  // chose and with a message it wrote, is one more failure of its code.
  if (is_interrupt(failure))
    ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg_internal("%s", failure->message)));
  // (Not one raised in the owner's code: a refusal there depends on the
  // rows; take_statement_refusal, is_shard_refusal.)
  if (take_statement_refusal(failure) || is_shard_refusal(failure, relid)) raise_refusal_again(failure);
  const char* relation =
      quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
  // For the DBA only: LOG_SERVER_ONLY never reaches the client, whatever its
  // client_min_messages.
  ereport(LOG_SERVER_ONLY,
          (errmsg("dptrain: reading \"%s\" for a run of role %s without read access failed: %s", relation,
                  GetUserNameFromId(ids.caller, true) ? GetUserNameFromId(ids.caller, true) : "?",
                  failure->message ? failure->message : "(no message)"),
           failure->detail ? errdetail_internal("%s", failure->detail) : 0, errhidestmt(true)));
  // Charged before the error is raised: the error is as much an answer as a
  // release (it tells that some row fails the owner's code).
  bool charged = ids.charge.model_id != 0;
  if (!charged && ids.pending_charge != nullptr) {
    (void) ledger_reserve(ids, *ids.pending_charge);
    charged = true;
  }
  ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("reading \"%s\" for the run failed", relation),
                  errdetail("The error is not shown to roles without read access: it could reveal a row.%s",
                            charged ? " The run was charged." : ""),
                  errhint("Ask the owner of \"%s\" to look at the server log, or to repair the relation.",
                          relation)));
}

void spi_exec_hiding_errors(const RunIdentities& ids, Oid relid, const char* sql, int nargs, Oid* types,
                            Datum* values, int expected) {
  Statement st = {ids.reader, relid, sql, nargs, types, values, expected};
  run_hiding_errors(ids, relid, exec_statement, &st);
}

}  // namespace dptrain::pg
