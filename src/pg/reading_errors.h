// Reading the source on behalf of a role without read access
// (docs/governance.md, "What a role without read access learns").
//
// The source may be a view or have row security, and the owner's code in it
// may fail on some row (`reading::float8` on a free-text value, `1.0 / z`).
// PostgreSQL's error would print the row's value to the caller: a free look
// at the data. So every statement that reads the source for such a role runs
// here: an error is logged for the DBA (server log only) and replaced by a
// fixed one that names only the relation; if the run was not charged yet, it
// is charged first (RunIdentities::pending_charge), so that the error costs
// what a release costs. A cancel stays a cancel. Nothing below ERROR that
// the read raises (the owner's RAISE NOTICE of a row) reaches the client
// either. A role that may read the data sees the real error and messages.
#pragma once

#include "access.h"

namespace dptrain::pg {

// Runs body(arg), which reads `relid` on behalf of the run (and switches to
// ids.reader itself): for a reader as it is, otherwise in a subtransaction
// whose error is hidden as above. `body` must keep C++ objects with
// destructors out of its frames (pg_glue.h): an ERROR longjmps past them.
void run_hiding_errors(const RunIdentities& ids, Oid relid, void (*body)(void*), void* arg);

// Runs `sql` (SPI_execute_with_args; ERROR unless it returns `expected`)
// with the rights of ids.reader in a security-restricted operation.
// `relid`: the source, named in the fixed error. Requires SPI_connect().
void spi_exec_hiding_errors(const RunIdentities& ids, Oid relid, const char* sql, int nargs, Oid* types,
                            Datum* values, int expected);

}  // namespace dptrain::pg
