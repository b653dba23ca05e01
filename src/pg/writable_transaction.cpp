// See writable_transaction.h.
#include "writable_transaction.h"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
}

namespace dptrain::pg {

void require_writable_transaction(const char* function) {
  // A standby's transactions are read only too; its own message says where to go.
  if (RecoveryInProgress())
    ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                    errmsg("cannot execute %s during recovery", function),
                    errdetail("A training run stores its model and a private run is charged to the ledger: "
                              "a hot standby can do neither. Nothing was charged."),
                    errhint("Train on the primary server; dp_predict and dp_evaluate work on a standby.")));
  // A PARALLEL SAFE wrapper of the user's (or debug_parallel_query) can run
  // the call in a parallel worker, or in a leader in parallel mode: no
  // writes there either. A reader's run was charged, then failed on its
  // temp table; a role without read access failed inside its hidden read,
  // whose error never reached the leader: the query waited forever.
  if (IsInParallelMode())
    ereport(ERROR, (errcode(ERRCODE_INVALID_TRANSACTION_STATE),
                    errmsg("cannot execute %s during a parallel operation", function),
                    errdetail("A training run stores its model; it is refused before its charge. Nothing was charged."),
                    errhint("Do not mark a function that trains PARALLEL SAFE; call %s directly.", function)));
  if (XactReadOnly)
    ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                    errmsg("cannot execute %s in a read-only transaction", function),
                    errdetail("A training run stores its model; it is refused before its charge. Nothing was charged."),
                    errhint("Train in a read-write transaction (BEGIN READ WRITE, or "
                            "SET default_transaction_read_only = off).")));
}

}  // namespace dptrain::pg
