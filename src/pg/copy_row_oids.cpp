#include "copy_row_oids.h"

extern "C" {
#include "access/detoast.h"
#include "access/heaptoast.h"
#include "access/transam.h"
#include "commands/trigger.h"
#include "utils/rel.h"
}

#include "sparsevec.h"
#include "training_spi.h"

namespace dptrain::pg {
namespace {

constexpr int kX = 2;  // x, the second column of every copy: (i, x, y)

Oid relation_of(const char* table) { return temp_table_oid(table + strlen("pg_temp.")); }

}  // namespace

bool spends_one_oid_per_row(Relation rel) {
  TupleDesc desc = RelationGetDescr(rel);
  if (desc->natts < kX) return false;
  Form_pg_attribute x = TupleDescAttr(desc, kX - 1);
  if (x->atttypid != sparsevec_type_oid() || x->attstorage != TYPSTORAGE_EXTERNAL) return false;
  // what row_spending_one_oid assumes of the store
  if (!OidIsValid(rel->rd_rel->reltoastrelid) ||
      RelationGetToastTupleTarget(rel, TOAST_TUPLE_TARGET) != TOAST_TUPLE_THRESHOLD)
    elog(ERROR, "dptrain: the training copy %s has no TOAST table or another toast_tuple_target",
         RelationGetRelationName(rel));
  return true;
}

void spend_one_oid_per_row(const char* table) {
  spi_exec(psprintf("ALTER TABLE %s ALTER COLUMN x SET STORAGE EXTERNAL; "
                    "CREATE TRIGGER dptrain_one_oid_per_row BEFORE INSERT ON %s "
                    "FOR EACH ROW EXECUTE FUNCTION dptrain.one_oid_per_row()",
                    table, table),
           0, nullptr, nullptr, SPI_OK_UTILITY);
}

void keep_one_oid_per_row(const char* from, const char* table) {
  Relation rel = table_open(relation_of(from), AccessShareLock);
  const bool marked = spends_one_oid_per_row(rel);
  table_close(rel, AccessShareLock);
  if (marked) spend_one_oid_per_row(table);
}

// heap_prepare_insert hands a tuple to the TOAST code when it is longer
// than TOAST_TUPLE_THRESHOLD or holds an external value; there
// (heap_toast_insert_or_update) x, the one varlena, inline, uncompressed
// and STORAGE EXTERNAL, is the only candidate and goes out of line (one OID,
// toast_save_datum) as the tuple exceeds the table's toast_tuple_target,
// TOAST_TUPLE_TARGET (= the threshold) as no copy sets it.
HeapTuple row_spending_one_oid(HeapTuple row, TupleDesc desc) {
  bool isnull;
  const Datum x = heap_getattr(row, kX, desc, &isnull);
  if (!isnull && (VARATT_IS_EXTERNAL(DatumGetPointer(x)) || VARATT_IS_COMPRESSED(DatumGetPointer(x)))) {
    Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * desc->natts));
    bool* nulls = static_cast<bool*>(palloc(sizeof(bool) * desc->natts));
    heap_deform_tuple(row, desc, values, nulls);
    struct varlena* flat = detoast_attr(reinterpret_cast<struct varlena*>(DatumGetPointer(x)));
    values[kX - 1] = PointerGetDatum(flat);
    row = heap_form_tuple(desc, values, nulls);
    // (the bucket shuffle inserts millions of rows in one memory context)
    pfree(flat);
    pfree(values);
    pfree(nulls);
  }
  if (row->t_len <= TOAST_TUPLE_THRESHOLD) (void) GetNewObjectId();
  return row;
}

}  // namespace dptrain::pg

// The trigger of spend_one_oid_per_row: rows inserted by SQL (a copy in
// the query's order, its reshuffles, the parts of a tuning run).
extern "C" {
PG_FUNCTION_INFO_V1(dptrain_one_oid_per_row);
Datum dptrain_one_oid_per_row(PG_FUNCTION_ARGS) {
  TriggerData* t = reinterpret_cast<TriggerData*>(fcinfo->context);
  if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(t->tg_event) || !TRIGGER_FIRED_FOR_ROW(t->tg_event) ||
      !TRIGGER_FIRED_BY_INSERT(t->tg_event) || !dptrain::pg::spends_one_oid_per_row(t->tg_relation))
    ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                    errmsg("dptrain.one_oid_per_row() is the BEFORE INSERT row trigger of dptrain's training copies"),
                    errhint("Do not call it or attach it to other tables.")));
  return PointerGetDatum(dptrain::pg::row_spending_one_oid(t->tg_trigtuple, RelationGetDescr(t->tg_relation)));
}
}
