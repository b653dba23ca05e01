#include "access.h"

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

const char* quoted_role(Oid role) { return quote_identifier(GetUserNameFromId(role, false)); }

}  // namespace dptrain::pg
