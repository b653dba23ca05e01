// SPI calls of the statements that read the source (the training data,
// training_data.h; reading_errors.h; distributed_source.h): run a statement,
// read a count from its result, name the run's temp tables. Require
// SPI_connect().
#pragma once

#include "statement_checks.h"

namespace dptrain::pg {

// Runs `sql` (with its `nargs` parameters, if any) with the current rights;
// ERROR unless SPI returns `expected`.
void spi_exec(const char* sql, int nargs, Oid* types, Datum* values, int expected);

// Runs `sql`, which names the source (`read.source`) by text, with the
// rights of `role` in a security-restricted operation: for every query that
// reads the source relation (access.h). Checked before it runs: parsed, it
// must read that relation and nothing else by name (statement_checks.h: the
// name is resolved again here, and a schema renamed meanwhile by another
// session could put a view there whose functions would run as `role`, the
// caller or the relation's owner).
void spi_exec_as_reader(Oid role, const SourceRead& read, const char* sql, int nargs, Oid* types, Datum* values,
                        int expected);

// A read of the relation `relid` and nothing else (no insert target).
SourceRead source_read(Oid relid);

// Column `col` (from 1) of row `row` of the last result as an int8; NULL is 0.
int64 datum_int64(int row, int col);

// The relation of a temp table named pg_temp.<bare>.
Oid temp_table_oid(const char* bare);

}  // namespace dptrain::pg
