// dptrain.relation_ref and dptrain.role_ref: the relation and role columns
// of dptrain's own tables (sql/05_references.sql). Stored as an OID, like
// regclass and regrole, and printed as a (schema-qualified) name; a
// reference to nothing is 0, printed "-". Unlike regclass and regrole, the
// input accepts a name that does not resolve, as 0, with a WARNING: pg_dump
// keeps these tables, and a dump restored without one of the tables
// (pg_dump -T) or roles it names must restore every other row -- one
// failing value fails the whole COPY. A number never resolves: an OID from
// a dump means nothing in the database it is restored into.
#include "pg_glue.h"

extern "C" {
#include "catalog/namespace.h"
#include "utils/regproc.h"
}

namespace {

bool is_number(const char* s) {
  if (*s == '\0') return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

// "-", a number, or a name that may be double-quoted; InvalidOid unless the name resolves.
template <typename Resolve>
Oid reference_in(const char* text, const char* kind, Resolve resolve) {
  if (strcmp(text, "-") == 0 || is_number(text)) return InvalidOid;
  const Oid oid = resolve(text);
  if (!OidIsValid(oid))
    ereport(WARNING, (errmsg("%s %s does not exist: dptrain keeps the reference to it as \"-\"", kind, text),
                      errhint("Its budgets are not restored; its models and ledger rows are, with their names.")));
  return oid;
}

Oid resolve_relation(const char* text) {
  List* names = stringToQualifiedNameList(text);
  return RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
}

Oid resolve_role(const char* text) {
  List* names = stringToQualifiedNameList(text);
  if (list_length(names) != 1)
    ereport(ERROR, (errcode(ERRCODE_INVALID_NAME), errmsg("invalid role name \"%s\"", text),
                    errhint("Pass one role name, quoted as an identifier if needed.")));
  return get_role_oid(strVal(linitial(names)), true);
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_relation_ref_in);
PG_FUNCTION_INFO_V1(dptrain_relation_ref_out);
PG_FUNCTION_INFO_V1(dptrain_role_ref_in);
PG_FUNCTION_INFO_V1(dptrain_role_ref_out);

Datum dptrain_relation_ref_in(PG_FUNCTION_ARGS) {
  PG_RETURN_OID(reference_in(PG_GETARG_CSTRING(0), "relation", resolve_relation));
}

// Always schema-qualified, so that a dump names the relation the same way
// whatever the search_path where it is restored.
Datum dptrain_relation_ref_out(PG_FUNCTION_ARGS) {
  const Oid oid = PG_GETARG_OID(0);
  if (!OidIsValid(oid)) PG_RETURN_CSTRING(pstrdup("-"));
  char* name = get_rel_name(oid);
  if (name == nullptr) PG_RETURN_CSTRING(psprintf("%u", oid));
  PG_RETURN_CSTRING(const_cast<char*>(
      quote_qualified_identifier(get_namespace_name(get_rel_namespace(oid)), name)));
}

Datum dptrain_role_ref_in(PG_FUNCTION_ARGS) {
  PG_RETURN_OID(reference_in(PG_GETARG_CSTRING(0), "role", resolve_role));
}

Datum dptrain_role_ref_out(PG_FUNCTION_ARGS) {
  const Oid oid = PG_GETARG_OID(0);
  if (!OidIsValid(oid)) PG_RETURN_CSTRING(pstrdup("-"));
  char* name = GetUserNameFromId(oid, true);
  if (name == nullptr) PG_RETURN_CSTRING(psprintf("%u", oid));
  PG_RETURN_CSTRING(const_cast<char*>(quote_identifier(name)));
}

}  // extern "C"
