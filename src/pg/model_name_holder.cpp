// model_name_holder (model_name_holder.h): the unique index of
// dptrain.models on (created_by, name) read under a dirty snapshot, as the
// index's own uniqueness check reads it (nbtinsert.c, _bt_check_unique):
// it sees rows of transactions in progress, and names their inserter in
// the snapshot's xmin.
#include "model_name_holder.h"

extern "C" {
#include "access/genam.h"
#include "access/stratnum.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
}

namespace dptrain::pg {
namespace {

// The unique index on (created_by, name) of `rel`, opened; nullptr if none.
Relation name_index(Relation rel) {
  const AttrNumber created_by = get_attnum(RelationGetRelid(rel), "created_by");
  const AttrNumber name = get_attnum(RelationGetRelid(rel), "name");
  List* indexes = RelationGetIndexList(rel);
  ListCell* cell;
  foreach (cell, indexes) {
    Relation index = index_open(lfirst_oid(cell), AccessShareLock);
    const Form_pg_index form = index->rd_index;
    if (form->indisunique && form->indnkeyatts == 2 && form->indkey.values[0] == created_by &&
        form->indkey.values[1] == name)
      return index;
    index_close(index, AccessShareLock);
  }
  return nullptr;
}

}  // namespace

TransactionId model_name_holder(const char* creator, const char* name) {
  const Oid models = get_relname_relid("models", get_namespace_oid("dptrain", false));
  if (!OidIsValid(models)) elog(ERROR, "dptrain: dptrain.models does not exist");
  Relation rel = table_open(models, AccessShareLock);
  Relation index = name_index(rel);
  if (index == nullptr) elog(ERROR, "dptrain: dptrain.models has no unique index on (created_by, name)");
  NameData creator_name;
  namestrcpy(&creator_name, creator);
  ScanKeyData keys[2];
  ScanKeyEntryInitialize(&keys[0], 0, 1, BTEqualStrategyNumber, InvalidOid, index->rd_indcollation[0], F_NAMEEQ,
                         NameGetDatum(&creator_name));
  ScanKeyEntryInitialize(&keys[1], 0, 2, BTEqualStrategyNumber, InvalidOid, index->rd_indcollation[1], F_TEXTEQ,
                         CStringGetTextDatum(name));
  SnapshotData dirty;
  InitDirtySnapshot(dirty);
  IndexScanDesc scan = index_beginscan(rel, index, &dirty, 2, 0);
  index_rescan(scan, keys, 2, nullptr, 0);
  TupleTableSlot* slot = table_slot_create(rel, nullptr);
  TransactionId holder = InvalidTransactionId;
  // A row whose inserter has not ended leaves it in xmin (this
  // transaction's own rows do not: check_model_name sees them).
  while (!TransactionIdIsValid(holder) && index_getnext_slot(scan, ForwardScanDirection, slot))
    holder = dirty.xmin;
  ExecDropSingleTupleTableSlot(slot);
  index_endscan(scan);
  index_close(index, AccessShareLock);
  table_close(rel, AccessShareLock);
  return holder;
}

}  // namespace dptrain::pg
