#include "training_spi.h"

extern "C" {
#include "catalog/namespace.h"
#include "nodes/makefuncs.h"
}

#include "access.h"

namespace dptrain::pg {

void spi_exec(const char* sql, int nargs, Oid* types, Datum* values, int expected) {
  const int rc = nargs > 0 ? SPI_execute_with_args(sql, nargs, types, values, nullptr, false, 0)
                           : SPI_execute(sql, false, 0);
  if (rc != expected) elog(ERROR, "dptrain: SPI failed (%d) on: %s", rc, sql);
}

void spi_exec_as_reader(Oid role, const SourceRead& read, const char* sql, int nargs, Oid* types, Datum* values,
                        int expected) {
  IdentitySwitch sw;
  switch_identity(&sw, role, true);
  const int rc = execute_checked(sql, nargs, types, values, false, 0, read);
  if (rc != expected) elog(ERROR, "dptrain: SPI failed (%d) on: %s", rc, sql);
  restore_identity(&sw);
}

SourceRead source_read(Oid relid) {
  SourceRead read;
  read.source = relid;
  return read;
}

int64 datum_int64(int row, int col) {
  bool isnull;
  const Datum d = SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, &isnull);
  return isnull ? 0 : DatumGetInt64(d);
}

Oid temp_table_oid(const char* bare) {
  return RangeVarGetRelid(makeRangeVar(pstrdup("pg_temp"), pstrdup(bare), -1), NoLock, false);
}

}  // namespace dptrain::pg
