// dptrain.guard_ledger(): the ddl_command_start event trigger that refuses
// to drop the extension -- DROP EXTENSION dptrain, DROP SCHEMA ... CASCADE
// of the schema it lives in, DROP OWNED BY its owner -- while its ledger
// records privacy spent under a budget or cap (dptrain.ledger_has_spending).
// Dropping it would delete the ledger, and a new CREATE EXTENSION would
// start every budget from zero: the same people could be spent on again.
#include "access.h"

extern "C" {
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "nodes/parsenodes.h"
}

namespace {

struct ExtensionFacts {
  Oid owner;
  char* schema;
};

bool facts_of_dptrain(ExtensionFacts* out) {
  SPI_connect();
  if (SPI_execute("SELECT e.extowner, n.nspname FROM pg_catalog.pg_extension e "
                  "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'dptrain'",
                  true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read pg_extension");
  const bool found = SPI_processed == 1;
  if (found) {
    bool isnull;
    out->owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
    out->schema = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
  }
  SPI_finish();
  return found;
}

bool names_one_of(List* objects, const char* name) {
  ListCell* cell;
  foreach (cell, objects) {
    Node* object = static_cast<Node*>(lfirst(cell));
    if (IsA(object, String) && strcmp(strVal(object), name) == 0) return true;
  }
  return false;
}

// Whether the statement drops the extension (itself, or by cascade).
bool drops_dptrain(Node* statement, const ExtensionFacts& dptrain) {
  if (IsA(statement, DropStmt)) {
    auto* drop = reinterpret_cast<DropStmt*>(statement);
    if (drop->removeType == OBJECT_EXTENSION) return names_one_of(drop->objects, "dptrain");
    if (drop->removeType == OBJECT_SCHEMA)
      return drop->behavior == DROP_CASCADE && names_one_of(drop->objects, dptrain.schema);
    return false;
  }
  if (IsA(statement, DropOwnedStmt)) {
    ListCell* cell;
    foreach (cell, reinterpret_cast<DropOwnedStmt*>(statement)->roles)
      if (get_rolespec_oid(static_cast<RoleSpec*>(lfirst(cell)), true) == dptrain.owner) return true;
  }
  return false;
}

bool ledger_has_spending(Oid extension_owner) {
  dptrain::pg::IdentitySwitch sw;
  dptrain::pg::switch_identity(&sw, extension_owner, false);
  SPI_connect();
  if (SPI_execute("SELECT dptrain.ledger_has_spending()", true, 1) != SPI_OK_SELECT || SPI_processed != 1)
    elog(ERROR, "dptrain: could not read the ledger");
  bool isnull;
  const bool spent = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
  SPI_finish();
  dptrain::pg::restore_identity(&sw);
  return spent;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_guard_ledger);

Datum dptrain_guard_ledger(PG_FUNCTION_ARGS) {
  if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
    ereport(ERROR, (errcode(ERRCODE_E_R_I_E_EVENT_TRIGGER_PROTOCOL_VIOLATED),
                    errmsg("dptrain.guard_ledger can only be called as an event trigger"),
                    errhint("It guards DROP EXTENSION dptrain; there is nothing to call it for.")));
  auto* trigger = reinterpret_cast<EventTriggerData*>(fcinfo->context);
  ExtensionFacts dptrain;
  if (!facts_of_dptrain(&dptrain) || !drops_dptrain(trigger->parsetree, dptrain)) PG_RETURN_VOID();
  if (ledger_has_spending(dptrain.owner))
    ereport(ERROR, (errcode(ERRCODE_OBJECT_IN_USE),
                    errmsg("cannot drop extension dptrain: its ledger records privacy spent under budgets or caps"),
                    errdetail("Dropping it would delete the ledger, and the privacy already spent on the tables "
                              "would be forgotten."),
                    errhint("Keep a dump of the ledger (pg_dump keeps it); to drop the extension anyway, its owner "
                            "first deletes the history: DELETE FROM dptrain.ledger; DELETE FROM dptrain.budgets; "
                            "DELETE FROM dptrain.table_budgets;")));
  PG_RETURN_VOID();
}

}  // extern "C"
