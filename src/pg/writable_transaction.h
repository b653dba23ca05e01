// The refusal of a run in a transaction that cannot write, before its charge.
// A private run is charged by a background worker in a transaction of its
// own, which can write even when the caller's cannot: in a READ ONLY
// transaction (SET TRANSACTION READ ONLY, default_transaction_read_only =
// on, a read-only pooler route) dp_train was charged, then failed on its
// temp table or on storing its model -- paid, nothing released, for an error
// known before the charge. On a hot standby the worker (which may start only
// once recovery has finished) never started: the call waited until it was
// cancelled and left its registration holding a worker slot until promotion.
// In parallel mode (a PARALLEL SAFE wrapper, debug_parallel_query) the same
// holds, and a run without read access hung its query (writable_transaction.cpp).
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// ERROR 25006 (read_only_sql_transaction) naming `function` when this
// transaction cannot write (hot standby included), 25000 in parallel mode;
// nothing has been charged.
void require_writable_transaction(const char* function);

}  // namespace dptrain::pg
