// The training copy of an unseeded run in a uniformly random order without
// a sort: the Rao-Sandelius shuffle of core/sgd/bucket_shuffle.h over the
// rows of an SQL query, written straight into the (empty) temp table.
//
// Pass 1 runs `select_sql` (SPI, with a DestReceiver: no tuplestore, no
// sort) and appends each result row to one of B temp files (BufFile),
// chosen uniformly from a fresh RandomSource::secure(); pass 2 reads the
// files one at a time, permutes the bucket's rows in memory (Fisher-Yates)
// and inserts them into `target` (table_tuple_insert with a bulk-insert
// state, as COPY FROM does). B is chosen so that a bucket holds about
// work_mem bytes; with B = 1 the rows stay in memory.
#pragma once

#include "pg_glue.h"
#include "statement_checks.h"

namespace dptrain::pg {

// Requires SPI_connect(); runs `select_sql` with the current identity (the
// caller switches to the reader). `source`, if given: the relation the query
// names by text, checked before it runs (statement_checks.h). `target` is a temp table without indexes,
// triggers or constraints other than NOT NULL, whose columns match the
// query's result in number and type (checked). `rows` and `row_bytes` only
// size the buckets. Returns the number of rows inserted; the table's rows
// are visible to the next command.
int64 bucket_shuffle_insert(Oid target, const char* select_sql, int nargs, Oid* types, Datum* values, int64 rows,
                            int64 row_bytes, const SourceRead* source);

}  // namespace dptrain::pg
