#include "access.h"

extern "C" {
#include "access/reloptions.h"
#include "utils/rel.h"
}

namespace dptrain::pg {

void switch_identity(IdentitySwitch* s, Oid role, bool restricted) {
  GetUserIdAndSecContext(&s->saved_user, &s->saved_context);
  SetUserIdAndSecContext(role, s->saved_context | SECURITY_LOCAL_USERID_CHANGE |
                                   (restricted ? SECURITY_RESTRICTED_OPERATION : 0));
  // Whatever the code run under this identity sets (search_path with
  // set_config(..., true), ...) is rolled back by restore_identity.
  s->guc_level = NewGUCNestLevel();
}

void restore_identity(const IdentitySwitch* s) {
  AtEOXact_GUC(false, s->guc_level);
  SetUserIdAndSecContext(s->saved_user, s->saved_context);
}

int pin_search_path() {
  const int level = NewGUCNestLevel();
  (void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
                           false);
  return level;
}

void unpin_search_path(int level) { AtEOXact_GUC(true, level); }

int pin_row_security() {
  const int level = NewGUCNestLevel();
  (void) set_config_option("row_security", "on", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
  return level;
}

Oid function_owner(FunctionCallInfo fcinfo) {
  HeapTuple tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
  if (!HeapTupleIsValid(tuple)) elog(ERROR, "dptrain: cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
  const Oid owner = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tuple))->proowner;
  ReleaseSysCache(tuple);
  return owner;
}

RunIdentities caller_identities() {
  RunIdentities ids;
  ids.caller = ids.reader = ids.runner = GetUserId();
  ids.caller_reads = true;
  return ids;
}

Oid relation_owner(Oid relid) {
  HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(tuple))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid),
                    errhint("Was the table dropped during the call?")));
  const Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
  ReleaseSysCache(tuple);
  return owner;
}

bool can_read_columns(Oid relid, AttrNumber label, AttrNumber features, Oid role) {
  // Table-level SELECT, or column-level SELECT on both (pg_attribute_aclcheck
  // looks at the column's own ACL only, as has_column_privilege does next).
  return pg_class_aclcheck(relid, role, ACL_SELECT) == ACLCHECK_OK ||
         (pg_attribute_aclcheck(relid, label, role, ACL_SELECT) == ACLCHECK_OK &&
          pg_attribute_aclcheck(relid, features, role, ACL_SELECT) == ACLCHECK_OK);
}

bool can_read_any_column(Oid relid, Oid role) {
  return pg_class_aclcheck(relid, role, ACL_SELECT) == ACLCHECK_OK ||
         pg_attribute_aclcheck_all(relid, role, ACL_SELECT, ACLMASK_ANY) == ACLCHECK_OK;
}

char* require_training_relation(Oid relid) {
  char* relname = get_rel_name(relid);
  if (relname == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid),
                    errhint("Pass the table as a name, e.g. source => 'my_schema.my_table'.")));
  const char relkind = get_rel_relkind(relid);
  if (relkind != RELKIND_RELATION && relkind != RELKIND_VIEW && relkind != RELKIND_MATVIEW &&
      relkind != RELKIND_FOREIGN_TABLE && relkind != RELKIND_PARTITIONED_TABLE)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("\"%s\" is not a table or view", relname),
                    errhint("Train on a table, view, materialized view, foreign or partitioned table.")));
  return relname;
}

void refuse_owner_read_of_invoker_rules(Oid relid, const char* relname, Oid caller) {
  // The owner (or a member of it) reads as itself; a role with BYPASSRLS
  // would read every row under row security too.
  if (has_privs_of_role(caller, relation_owner(relid))) return;
  HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(tuple)) elog(ERROR, "dptrain: cache lookup failed for relation %u", relid);
  const Form_pg_class c = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple));
  const bool row_security = c->relrowsecurity && !has_bypassrls_privilege(caller);
  bool invoker = false;
  if (c->relkind == RELKIND_VIEW) {
    bool isnull;
    const Datum options = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_reloptions, &isnull);
    if (!isnull) {
      const ViewOptions* v = reinterpret_cast<const ViewOptions*>(view_reloptions(options, false));
      invoker = v != nullptr && v->security_invoker;
    }
  }
  ReleaseSysCache(tuple);
  if (row_security)
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("\"%s\" has row-level security, and %s may not read its label and feature columns", relname,
                           GetUserNameFromId(caller, false)),
                    errdetail("A run without read access reads the rows with the owner's rights, to which the "
                              "policies for %s do not apply: it would train on (and count in n) rows they hide.",
                              GetUserNameFromId(caller, false)),
                    errhint("The owner may grant SELECT on the columns (the role's runs then read the rows its "
                            "policies show it), or grant the budget on a view that selects the rows it may train on.")));
  if (invoker)
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("\"%s\" is a security_invoker view, and %s may not read its label and feature columns",
                           relname, GetUserNameFromId(caller, false)),
                    errdetail("A run without read access reads the rows with the owner's rights, but the view reads "
                              "its tables with the rights and policies of whoever reads it."),
                    errhint("The owner may grant SELECT on the columns, or grant the budget on a view without "
                            "security_invoker.")));
}

void require_schema_usage(Oid relid, Oid caller) {
  const Oid nsp = get_rel_namespace(relid);
  if (pg_namespace_aclcheck(nsp, caller, ACL_USAGE) == ACLCHECK_OK) return;
  ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("permission denied for schema %s", get_namespace_name(nsp)),
                  errdetail("Role %s may not use the schema of \"%s\".", GetUserNameFromId(caller, false),
                            get_rel_name(relid)),
                  errhint("Ask the owner of the schema for USAGE on it.")));
}

const char* quoted_role(Oid role) { return quote_identifier(GetUserNameFromId(role, false)); }

}  // namespace dptrain::pg
