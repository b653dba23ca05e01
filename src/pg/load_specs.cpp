// The load specs of tables made by `dptrain load` (docs/loading-data.md):
//
//   dptrain.register_load_spec(relation regclass, spec jsonb) -> void
//
// and how dp_train / dp_tune / dptrain.store_model copy a spec into a model.
#include "load_specs.h"

#include <memory>
#include <vector>

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

// Whether the table has row-level security enabled (for anyone: its owner
// and BYPASSRLS roles included).
bool has_row_security(Oid relid) {
  HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(tuple)) return true;  // gone: withhold
  const bool rls = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relrowsecurity;
  ReleaseSysCache(tuple);
  return rls;
}

// Whether the spec may go whole into the model. Its label values, file names
// and data-derived bounds and categories are facts of every row, so:
//  - the caller reads the table, every column of it: dptrain.store_model
//    accepts a role that may read any one column (a SELECT on `id` alone);
//  - the table has no row-level security at all, whoever trains: a private
//    model is shown to every role with SELECT on its source (the policy on
//    dptrain.models, sql/40_ledger.sql), also to one that row security
//    limits to some rows, so a spec stored whole for the owner or a
//    BYPASSRLS role would reach that role too.
bool whole_spec(Oid relid, const dptrain::pg::RunIdentities& ids) {
  if (!ids.caller_reads || has_row_security(relid)) return false;
  return pg_class_aclcheck(relid, ids.caller, ACL_SELECT) == ACLCHECK_OK ||
         pg_attribute_aclcheck_all(relid, ids.caller, ACL_SELECT, ACLMASK_ALL) == ACLCHECK_OK;
}

// The details without a "load_spec" the caller wrote itself: the model JSON
// dptrain.store_model takes is the caller's, and a spec there (say, declared
// bounds with from_data false for a table loaded with data-derived ones)
// would reach the readers of the model as if the loader had registered it.
std::string without_load_spec(const std::string& details) {
  if (details.find("\"load_spec\"") == std::string::npos) return details;
  std::string* out = nullptr;
  DPT_CORE({
    nlohmann::json d = nlohmann::json::parse(details);
    d.erase("load_spec");
    out = new std::string(d.dump());
  });
  std::unique_ptr<std::string> owned(out);
  return *owned;
}

}  // namespace

namespace dptrain::pg {

// Whether `relid` is a view (or materialized view) that reads, directly or
// through other views, a table loaded with bounds or categories read from
// the data: its rows are that table's, so its models are not private either.
// The dependencies of the views' rewrite rules name every relation they read.
static bool views_data_loaded_table(Oid relid) {
  Oid types[1] = {OIDOID};
  Datum values[1] = {ObjectIdGetDatum(relid)};
  if (SPI_execute_with_args(
          "WITH RECURSIVE under(rel) AS (SELECT $1 UNION "
          "SELECT d.refobjid FROM under u JOIN pg_catalog.pg_rewrite r ON r.ev_class OPERATOR(pg_catalog.=) u.rel "
          "JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass "
          "AND d.objid OPERATOR(pg_catalog.=) r.oid "
          "AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass) "
          "SELECT FROM dptrain.load_specs s JOIN under u ON s.relation::pg_catalog.oid OPERATOR(pg_catalog.=) u.rel "
          "WHERE (s.spec OPERATOR(pg_catalog.->>) 'from_data') IS DISTINCT FROM 'false' LIMIT 1",
          1, types, values, nullptr, true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.load_specs");
  return SPI_processed > 0;
}

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

ArrayType* public_load_spec_classes(Oid relid, const RunIdentities& ids) {
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  const std::optional<std::string> spec = registered_load_spec(relid);
  restore_identity(&sw);
  if (!spec) return nullptr;
  std::vector<std::string>* names = nullptr;
  DPT_CORE({
    const nlohmann::json s = nlohmann::json::parse(*spec);
    const auto classes = s.find("classes");
    if (s.value("classes_public", false) && !s.contains("positive") && classes != s.end() && classes->is_array()) {
      auto* out = new std::vector<std::string>();
      for (const auto& c : *classes)
        if (c.is_string()) out->push_back(c.get<std::string>());
      names = out;
    }
  });
  std::unique_ptr<std::vector<std::string>> owned(names);
  if (!owned || owned->empty()) return nullptr;
  Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * owned->size()));
  for (std::size_t i = 0; i < owned->size(); ++i) items[i] = CStringGetTextDatum((*owned)[i].c_str());
  return construct_array(items, static_cast<int>(owned->size()), TEXTOID, -1, false, TYPALIGN_INT);
}

std::string with_load_spec(const std::string& details, Oid relid, const RunIdentities& ids, bool announce) {
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  const std::optional<std::string> spec = registered_load_spec(relid);
  const bool viewed = !spec && views_data_loaded_table(relid);
  restore_identity(&sw);
  if (!spec && !viewed) return without_load_spec(details);
  const bool whole = spec && whole_spec(relid, ids);
  std::string* out = nullptr;
  bool reads_data = true;
  DPT_CORE({
    nlohmann::json stored;
    if (spec) {
      nlohmann::json s = nlohmann::json::parse(*spec);
      reads_data = preprocessing::load_spec_reads_data(s);
      s["from_data"] = reads_data;
      stored = whole ? s : preprocessing::withheld_load_spec(s);
    } else {
      // A view: its rows are those of the loaded table, but the spec maps
      // the table's columns, not the view's, so it is never copied whole.
      stored = {{"withheld", true}, {"from_data", true}, {"through_view", true}};
    }
    nlohmann::json d = nlohmann::json::parse(details);
    d["load_spec"] = stored;
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
  // SKIP LOCKED: a registration still open in another transaction holds
  // the stale rows it deleted, and must not stall every other load.
  if (SPI_execute("DELETE FROM dptrain.load_specs d WHERE d.ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
                  "SELECT s.ctid FROM dptrain.load_specs s WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c "
                  "WHERE c.oid OPERATOR(pg_catalog.=) s.relation::pg_catalog.oid) FOR UPDATE SKIP LOCKED))",
                  false, 0) != SPI_OK_DELETE ||
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
