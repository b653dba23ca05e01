// One OID per row of a sparse copy (docs/governance.md, "Hostile review of
// 2026-11-28, third round"): a value stored out of line in TOAST takes an
// OID from the cluster's one counter, which every role reads (lo_create(0)),
// and a sparse row goes out of line by its number of non-zeros (data). The
// copy of a run without read access therefore draws one OID for every row
// that stays inline, at its insertion: each row takes exactly one OID, so a
// copy spends n (public) and the counter advances one per row inserted.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// Makes the new temp table `table` (i, x dptrain.sparsevec, y) spend one OID
// per row: x uncompressed (STORAGE EXTERNAL, the mark the others test) and a
// BEFORE INSERT row trigger for the rows inserted by SQL. Call as its owner.
void spend_one_oid_per_row(const char* table);

// The same for `table`, made (LIKE `from` INCLUDING STORAGE), if `from`
// spends one OID per row.
void keep_one_oid_per_row(const char* from, const char* table);

// Whether rel spends one OID per row (its x column carries the mark).
bool spends_one_oid_per_row(Relation rel);

// The row to store in such a table instead of `row` (x fetched and
// decompressed, so that the store moves it out of line by its size alone),
// having drawn one OID unless the store will take one for it. For rows
// inserted without the executor (table_tuple_insert: the bucket shuffle).
HeapTuple row_spending_one_oid(HeapTuple row, TupleDesc desc);

}  // namespace dptrain::pg
