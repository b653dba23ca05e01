// The background worker behind charge_durably (charge_worker.h). The
// request and the answer travel in a dynamic shared memory segment; the
// worker connects as the extension owner, runs dptrain.ledger_reserve in
// one transaction, commits, writes the reserved model id (or the error) back, and
// exits. C-style throughout: PG_TRY regions hold no C++ objects.
#include "charge_worker.h"
#include "writable_transaction.h"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/fmgrprotos.h"
}

namespace {

constexpr int kText = 1024;

// The context line of the errors of a charge (its worker's, and the caller's refusals while it waits).
constexpr const char* kUnchargedContext =
    "while committing the privacy charge of this run in a background worker; nothing was charged";
constexpr const char* kChargedContext =
    "after committing the privacy charge of this run in a background worker; the run was charged, nothing "
    "was released";

struct ChargeSlot {
  // the request
  Oid database;
  Oid runner;
  Oid relid;
  Oid role;
  bool reader;
  double epsilon;
  double delta;
  int lock_timeout;  // the caller's lock_timeout (ms; 0: none)
  int synchronous_commit;  // the caller's (enum SyncCommitLevel)
  char source_name[kText];
  char session_role[NAMEDATALEN];
  char algorithm[NAMEDATALEN];
  // the answer, valid once `done`; `committed` as soon as the charge's
  // commit returned (also when the worker is stopped before it answers)
  bool done;
  bool committed;
  bool failed;
  int64 model_id;
  int sqlerrcode;
  char message[kText];
  char detail[kText];
  char hint[kText];
};

void copy_text(char* to, const char* from) { strlcpy(to, from ? from : "", kText); }

// The backends `pid` waits for a lock of.
void blockers_of(pid_t pid, List** out) {
  ArrayType* blockers = DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids, Int32GetDatum(pid)));
  Datum* items;
  int n;
  deconstruct_array(blockers, INT4OID, 4, true, TYPALIGN_INT, &items, nullptr, &n);
  for (int i = 0; i < n; ++i) *out = lappend_int(*out, DatumGetInt32(items[i]));
}

// Whether backend `pid` waits for a lock held by this backend: 1 directly,
// 2 through other backends that wait (a cycle through this backend, which
// waits for the worker on a latch the deadlock detector cannot see), 0 not.
// Before, only the direct wait was seen: an owner holding the table's charge
// lock and waiting for a lock of the caller's transaction left the caller
// waiting for its worker forever.
int waits_for_me(pid_t pid) {
  List* seen = list_make1_int(pid);
  List* frontier = NIL;
  blockers_of(pid, &frontier);
  for (int depth = 1; frontier != NIL && depth <= 8 && list_length(seen) < 64; ++depth) {
    List* next = NIL;
    ListCell* cell;
    foreach (cell, frontier) {
      const int blocker = lfirst_int(cell);
      if (blocker == MyProcPid) return depth == 1 ? 1 : 2;
      if (list_member_int(seen, blocker)) continue;
      seen = lappend_int(seen, blocker);
      blockers_of(blocker, &next);
    }
    frontier = next;
  }
  return 0;
}

// Runs when the caller detaches the request: after the answer, or because it
// gave up first -- an error, a cancel, statement_timeout, pg_terminate_backend
// (the transaction's abort, or the exit, detaches the segment). A worker
// that has not answered yet is stopped then: before, it went on waiting
// (say, for the row lock of an owner's open transaction) and charged the
// run after the caller had been told it failed -- a cancelled call paid.
// A worker that already committed keeps its charge (nothing was released).
void stop_unanswered_worker(dsm_segment* segment, Datum arg) {
  auto* handle = reinterpret_cast<BackgroundWorkerHandle*>(DatumGetPointer(arg));
  const auto* slot = static_cast<const ChargeSlot*>(dsm_segment_address(segment));
  pg_read_barrier();
  if (!slot->done) TerminateBackgroundWorker(handle);
  pfree(handle);
}

bool register_worker(BackgroundWorker* worker, BackgroundWorkerHandle** handle) {
  MemoryContext previous = MemoryContextSwitchTo(TopMemoryContext);
  const bool registered = RegisterDynamicBackgroundWorker(worker, handle);
  MemoryContextSwitchTo(previous);
  return registered;
}

BackgroundWorkerHandle* start_worker(dsm_segment* segment) {
  BackgroundWorker worker;
  memset(&worker, 0, sizeof(worker));
  worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
  worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
  worker.bgw_restart_time = BGW_NEVER_RESTART;
  strlcpy(worker.bgw_library_name, "dptrain", BGW_MAXLEN);
  strlcpy(worker.bgw_function_name, "dptrain_charge_worker_main", BGW_MAXLEN);
  snprintf(worker.bgw_name, BGW_MAXLEN, "dptrain charge for PID %d", MyProcPid);
  strlcpy(worker.bgw_type, "dptrain charge", BGW_MAXLEN);
  worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(segment));
  worker.bgw_notify_pid = MyProcPid;
  BackgroundWorkerHandle* handle = nullptr;
  // All worker slots busy (other charges, parallel queries): they free up
  // within milliseconds; give up after a minute. (The handle outlives the
  // call's memory: stop_unanswered_worker may use it while the transaction aborts.)
  for (int attempt = 0; !register_worker(&worker, &handle); ++attempt) {
    if (attempt >= 1200)
      ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_RESOURCES),
                      errmsg("no background worker slot is free to charge the privacy budget"),
                      errhint("Retry, or raise max_worker_processes.")));
    (void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 50, PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
  }
  on_dsm_detach(segment, stop_unanswered_worker, PointerGetDatum(handle));
  return handle;
}

void wait_for_worker(BackgroundWorkerHandle* handle) {
  for (;;) {
    pid_t pid;
    const BgwHandleStatus status = GetBackgroundWorkerPid(handle, &pid);
    if (status == BGWH_STOPPED) return;
    const int waits = status == BGWH_STARTED ? waits_for_me(pid) : 0;
    if (waits == 2) {
      TerminateBackgroundWorker(handle);
      ereport(ERROR, (errcode(ERRCODE_T_R_DEADLOCK_DETECTED), errmsg("deadlock detected"),
                      errdetail("The charge of this run waits for another session, which waits for this "
                                "transaction; nothing was charged."),
                      errhint("Retry in a new transaction, or once the other session has finished."),
                      errcontext("%s", kUnchargedContext)));
    }
    if (waits == 1) {
      TerminateBackgroundWorker(handle);
      ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                      errmsg("the privacy budget cannot be charged while this transaction holds it"),
                      errdetail("This transaction changed a budget or cap of the table (or locked dptrain's "
                                "tables); the charge is committed on its own and would wait for it forever."),
                      errhint("Commit the change first, then train."), errcontext("%s", kUnchargedContext)));
    }
    // The postmaster sets the latch when the worker starts and stops.
    (void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100, PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
  }
}

// In the worker: dptrain.ledger_reserve(...) as the runner; the model id or the error into the slot.
void reserve(ChargeSlot* slot) {
  Oid types[8] = {REGCLASSOID, TEXTOID, REGROLEOID, NAMEOID, BOOLOID, TEXTOID, FLOAT8OID, FLOAT8OID};
  Datum values[8] = {ObjectIdGetDatum(slot->relid),
                     CStringGetTextDatum(slot->source_name),
                     ObjectIdGetDatum(slot->role),
                     DirectFunctionCall1(namein, CStringGetDatum(slot->session_role)),
                     BoolGetDatum(slot->reader),
                     CStringGetTextDatum(slot->algorithm),
                     Float8GetDatum(slot->epsilon),
                     Float8GetDatum(slot->delta)};
  SPI_connect();
  if (SPI_execute_with_args("SELECT dptrain.ledger_reserve($1, $2, $3, $4, $5, $6, $7, $8)", 8, types, values,
                            nullptr, false, 1) != SPI_OK_SELECT ||
      SPI_processed != 1)
    elog(ERROR, "dptrain: the charge failed");
  bool isnull;
  slot->model_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
  SPI_finish();
}

// The worker's session settings for the charge, whatever the database's or
// the runner's defaults, with the caller's lock_timeout and at least its
// synchronous_commit.
void configure_charge_session(const ChargeSlot* slot) {
  SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION);
  // READ COMMITTED and read-write, whatever the database's or the runner's
  // defaults (ALTER DATABASE ... SET default_transaction_isolation =
  // 'serializable' is common): ledger_reserve locks the rows, then reads
  // their latest version. Under REPEATABLE READ or SERIALIZABLE a charge that
  // waited for another (a cap set, a concurrent charge) failed with 40001
  // instead; under default_transaction_read_only with 25006 (nextval()), for
  // a caller whose own transaction writes.
  SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_SESSION);
  SetConfigOption("default_transaction_read_only", "off", PGC_SUSET, PGC_S_SESSION);
  // The caller's lock_timeout bounds the charge's wait for the source's lock
  // as it would a lock wait of its own (it ignored it: only statement_timeout
  // or a cancel ended the wait). The error comes back with its SQLSTATE, 55P03.
  char lock_timeout[32];
  snprintf(lock_timeout, sizeof(lock_timeout), "%d", slot->lock_timeout);
  SetConfigOption("lock_timeout", lock_timeout, PGC_SUSET, PGC_S_SESSION);
  // The charge is durable before the run goes on to release anything: with
  // synchronous_commit = off (ALTER DATABASE or ALTER ROLE of the runner,
  // which a worker connected like this takes; or local) the commit returned
  // before its WAL was flushed, and a crash before the WAL writer's next
  // cycle lost the charge of a model already released
  // (test/tap/007_charge_durable.pl). At least "on": flushed here, and on
  // the synchronous standbys if synchronous_standby_names names any; the
  // caller's remote_apply is kept. (PGC_S_SESSION outranks the database's and
  // role's settings; ledger_reserve sets none.)
  const int durable = Max(Max(slot->synchronous_commit, synchronous_commit), SYNCHRONOUS_COMMIT_ON);
  SetConfigOption("synchronous_commit", durable == SYNCHRONOUS_COMMIT_REMOTE_APPLY ? "remote_apply" : "on",
                  PGC_SUSET, PGC_S_SESSION);
  pgstat_report_appname("dptrain charge");
}

}  // namespace

namespace dptrain::pg {

int64 charge_durably(const DurableCharge& c) {
  // The worker starts only once recovery has finished (BgWorkerStart_RecoveryFinished):
  // on a standby the call would wait for it forever. (dp_train, dp_tune and
  // store_model refuse earlier; this keeps any other path from hanging.)
  if (RecoveryInProgress()) require_writable_transaction("a charge of the privacy budget");
  dsm_segment* segment = dsm_create(sizeof(ChargeSlot), 0);
  auto* slot = static_cast<ChargeSlot*>(dsm_segment_address(segment));
  memset(slot, 0, sizeof(ChargeSlot));
  slot->database = MyDatabaseId;
  slot->runner = c.runner;
  slot->relid = c.relid;
  slot->role = c.role;
  slot->reader = c.reader;
  slot->epsilon = c.epsilon;
  slot->delta = c.delta;
  slot->lock_timeout = LockTimeout;
  slot->synchronous_commit = synchronous_commit;
  copy_text(slot->source_name, c.source_name);
  strlcpy(slot->session_role, GetUserNameFromId(GetSessionUserId(), false), NAMEDATALEN);
  strlcpy(slot->algorithm, c.algorithm, NAMEDATALEN);

  wait_for_worker(start_worker(segment));
  pg_read_barrier();
  // (A worker stopped while a synchronous standby had not confirmed its
  // commit has committed locally: charged, but nothing is released.)
  if (!slot->done && slot->committed)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("the privacy budget was charged, but not confirmed"),
                    errdetail("The charging background worker was stopped after its commit (waiting for a "
                              "synchronous standby?) and before it answered; the run was charged."),
                    errhint("Nothing was trained or released; retry, and see the server log if it persists.")));
  if (!slot->done)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("the privacy budget could not be charged"),
                    errdetail("The charging background worker ended without an answer; see the server log."),
                    errhint("Nothing was trained or charged; retry, and see the server log if it persists.")));
  // The worker's error, with its SQLSTATE, and a context line saying where
  // it came from and what it cost: a bare "canceling statement due to lock
  // timeout" did not say that the run's charge had waited, nor that
  // nothing was charged. (An error after the commit -- none is known --
  // would leave the charge standing: said so.)
  if (slot->failed)
    ereport(ERROR, (errcode(slot->sqlerrcode), errmsg("%s", slot->message),
                    slot->detail[0] ? errdetail("%s", slot->detail) : 0,
                    slot->hint[0] ? errhint("%s", slot->hint) : 0,
                    errcontext("%s", slot->committed ? kChargedContext : kUnchargedContext)));
  const int64 id = slot->model_id;
  dsm_detach(segment);
  return id;
}

}  // namespace dptrain::pg

extern "C" {

PGDLLEXPORT void dptrain_charge_worker_main(Datum argument);

void dptrain_charge_worker_main(Datum argument) {
  pqsignal(SIGTERM, die);
  BackgroundWorkerUnblockSignals();
  dsm_segment* segment = dsm_attach(DatumGetUInt32(argument));
  if (segment == nullptr)  // the caller gave up (cancelled) before the worker started: charge nothing
    proc_exit(0);
  auto* slot = static_cast<ChargeSlot*>(dsm_segment_address(segment));
  BackgroundWorkerInitializeConnectionByOid(slot->database, slot->runner, 0);
  configure_charge_session(slot);

  MemoryContext worker_context = CurrentMemoryContext;
  SetCurrentStatementStartTimestamp();
  StartTransactionCommand();
  pgstat_report_activity(STATE_RUNNING, "dptrain: charging a privacy budget");
  PushActiveSnapshot(GetTransactionSnapshot());
  PG_TRY();
  {
    reserve(slot);
    PopActiveSnapshot();
    CommitTransactionCommand();
    // The commit record is on disk whatever the setting above became (a
    // no-op when it is, as synchronous_commit = on made it).
    XLogFlush(XactLastCommitEnd);
    slot->committed = true;
    // Terminated while waiting for a synchronous standby (the wait ends with
    // a WARNING and the commit stands locally): exit without an answer, so
    // that the run releases nothing the standby might not have charged.
    CHECK_FOR_INTERRUPTS();
  }
  PG_CATCH();
  {
    MemoryContextSwitchTo(worker_context);
    ErrorData* e = CopyErrorData();
    FlushErrorState();
    // Whether the charge was committed: XactLastCommitEnd is set once this
    // worker's only transaction has committed (after any synchronous
    // standby's wait; between its commit record and there run only a
    // critical section, where an error is a PANIC, and that wait, which ends
    // with WARNINGs). An error before it aborts the charge: nothing charged.
    slot->committed = !XLogRecPtrIsInvalid(XactLastCommitEnd);
    AbortCurrentTransaction();
    slot->failed = true;
    slot->sqlerrcode = e->sqlerrcode;
    copy_text(slot->message, e->message);
    copy_text(slot->detail, e->detail);
    copy_text(slot->hint, e->hint);
  }
  PG_END_TRY();
  pgstat_report_activity(STATE_IDLE, nullptr);
  pg_write_barrier();
  slot->done = true;
  dsm_detach(segment);
  proc_exit(0);
}

}  // extern "C"
