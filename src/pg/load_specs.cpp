// The load specs of tables made by `dptrain load` (docs/loading-data.md):
//
//   dptrain.register_load_spec(relation regclass, spec jsonb) -> void
//
// and how dp_train / dp_tune / dptrain.store_model copy a spec into a model.
#include "load_specs.h"

#include <memory>

#include "access.h"
#include "access/xact.h"
#include "core/preprocessing/load_spec.h"
extern "C" {
#include "utils/rls.h"
}

namespace {

// Only a permanent table created in this very transaction (by `dptrain load`,
// which registers what it just created) can be registered: an owner cannot
// give an old table (whose rows it did not make) a spec, nor a temporary one
// (whose end at session exit sql_drop never reports).
void require_fresh_table(Oid relid) {
  HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(tuple))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid),
                    errhint("Tables get a load spec from dptrain load.")));
  const auto* form = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple));
  const bool table = form->relkind == RELKIND_RELATION || form->relkind == RELKIND_PARTITIONED_TABLE;
  const bool temporary = form->relpersistence == RELPERSISTENCE_TEMP;
  const bool fresh = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));
  ReleaseSysCache(tuple);
  if (!table || temporary || !fresh)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("only a permanent table created in this transaction can be registered"),
                    errhint("Tables get a load spec from dptrain load.")));
}

// Whether the caller may see the whole spec: it may read the table, and all
// of it -- under row-level security it may not see every row, and the spec's
// bounds and categories are facts of all of them.
bool sees_every_row(Oid relid, const dptrain::pg::RunIdentities& ids) {
  return ids.caller_reads && check_enable_rls(relid, ids.caller, true) != RLS_ENABLED;
}

}  // namespace

namespace dptrain::pg {

std::optional<std::string> registered_load_spec(Oid relid) {
  Oid types[1] = {OIDOID};
  Datum values[1] = {ObjectIdGetDatum(relid)};
  if (SPI_execute_with_args("SELECT s.spec::pg_catalog.text FROM dptrain.load_specs s "
                            "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relation::pg_catalog.oid "
                            "WHERE s.relation::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
                            "AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::pg_catalog.\"char\"[])",
                            1, types, values, nullptr, true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.load_specs");
  if (SPI_processed == 0) return std::nullopt;
  return std::string(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
}

std::string with_load_spec(const std::string& details, Oid relid, const RunIdentities& ids, bool announce) {
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  const std::optional<std::string> spec = registered_load_spec(relid);
  restore_identity(&sw);
  if (!spec) return details;
  const bool whole = sees_every_row(relid, ids);
  std::string* out = nullptr;
  bool reads_data = false;
  DPT_CORE({
    nlohmann::json s = nlohmann::json::parse(*spec);
    reads_data = preprocessing::load_spec_reads_data(s);
    s["from_data"] = reads_data;
    nlohmann::json d = nlohmann::json::parse(details);
    d["load_spec"] = whole ? s : preprocessing::withheld_load_spec(s);
    if (reads_data)
      d["warnings"].push_back("the table was loaded with bounds or categories read from the data (dptrain load): "
                              "they are outside the privacy guarantee");
    out = new std::string(d.dump());
  });
  std::unique_ptr<std::string> owned(out);
  if (reads_data && announce)
    ereport(NOTICE, (errmsg("this table was loaded with bounds or categories read from the data"),
                     errdetail("They are outside the privacy guarantee: the model is not private with respect to "
                               "the raw file (dptrain.models.private is false)."),
                     errhint("Load the file again with public --bounds and --categories (dptrain load).")));
  return *owned;
}

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_register_load_spec);

// Only the owner of a table registers its spec; the row is written with the
// extension owner's rights (the registry is neither readable nor writable by
// PUBLIC). The spec's `from_data` is recomputed here, not taken on trust.
Datum dptrain_register_load_spec(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("relation and spec must not be NULL"),
                    errhint("Tables get a load spec from dptrain load.")));
  const Oid relid = PG_GETARG_OID(0);
  const Oid caller = GetUserId();
  if (!has_privs_of_role(caller, dptrain::pg::relation_owner(relid)))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("only the owner of a table registers its load spec"),
                    errhint("Tables get a load spec from dptrain load.")));
  require_fresh_table(relid);
  Jsonb* jb = PG_GETARG_JSONB_P(1);
  const std::string text = JsonbToCString(nullptr, &jb->root, VARSIZE(jb));
  std::string checked;
  DPT_CORE({
    nlohmann::json s = nlohmann::json::parse(text);
    s["from_data"] = dptrain::preprocessing::load_spec_reads_data(s);
    checked = s.dump();
  });
  SPI_connect();
  dptrain::pg::IdentitySwitch sw;
  dptrain::pg::switch_identity(&sw, dptrain::pg::function_owner(fcinfo), false);
  Oid types[3] = {REGCLASSOID, JSONBOID, NAMEOID};
  Datum values[3] = {ObjectIdGetDatum(relid), DirectFunctionCall1(jsonb_in, CStringGetDatum(checked.c_str())),
                     DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(caller, false)))};
  // Registrations whose relation is gone (e.g. dropped while the event
  // trigger was disabled) go first: their oids may be reused.
  if (SPI_execute("DELETE FROM dptrain.load_specs s WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c "
                  "WHERE c.oid OPERATOR(pg_catalog.=) s.relation::pg_catalog.oid)", false, 0) != SPI_OK_DELETE ||
      SPI_execute_with_args("INSERT INTO dptrain.load_specs (relation, spec, created_by) VALUES ($1, $2, $3) "
                            "ON CONFLICT (relation) DO UPDATE SET spec = EXCLUDED.spec, "
                            "created_by = EXCLUDED.created_by, created_at = now()",
                            3, types, values, nullptr, false, 0) != SPI_OK_INSERT)
    elog(ERROR, "dptrain: could not register the load spec");
  dptrain::pg::restore_identity(&sw);
  SPI_finish();
  PG_RETURN_VOID();
}

}  // extern "C"
