#include "shard_guard.h"

extern "C" {
#include "access/transam.h"
#include "utils/array.h"
}

namespace dptrain::pg {

bool builtin_column_type(Oid type) {
  for (int depth = 0; depth < 32; ++depth) {
    if (type < FirstNormalObjectId) return true;
    HeapTuple t = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
    if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for type %u", type);
    const Form_pg_type form = reinterpret_cast<Form_pg_type>(GETSTRUCT(t));
    const bool domain = form->typtype == TYPTYPE_DOMAIN;
    const Oid owner = form->typowner, base = form->typbasetype;
    ReleaseSysCache(t);
    // A cast from the type can be made by its owner or the target's (the
    // passes cast to built-in types only): a superuser's type has none of
    // anyone else's.
    if (superuser_arg(owner)) return true;
    if (!domain) return false;
    type = base;
  }
  return false;
}

char* shard_guard_sql(const char* label, const char* features, const char* row_key) {
  return psprintf("dptrain.shard_guard(%s.tableoid, ARRAY[%s, %s, %s]::pg_catalog.text[])", kShardGuardAlias,
                  quote_literal_cstr(label), quote_literal_cstr(features), quote_literal_cstr(row_key));
}

namespace {

pg_attribute_noreturn() void refuse(Oid relid, const char* problem) {
  const char* name = get_rel_name(relid);
  ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                  errmsg("a shard of the source is no longer the plain table the run checked"),
                  errdetail("On this node the shard's name finds relation \"%s\", which %s.", name ? name : "?",
                            problem),
                  errhint("Was the shard or its schema changed on a worker during training?")));
}

// The checks of the header on relation `relid` (a shard as this node sees it).
void check_shard(Oid relid, ArrayType* columns) {
  HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for relation %u", relid);
  const Form_pg_class c = reinterpret_cast<Form_pg_class>(GETSTRUCT(t));
  const bool plain = c->relkind == RELKIND_RELATION;
  const bool rls = c->relrowsecurity || c->relforcerowsecurity;
  ReleaseSysCache(t);
  if (!plain) refuse(relid, "is not a plain table");
  if (rls) refuse(relid, "has row-level security");
  Datum* names;
  bool* nulls;
  int n;
  deconstruct_array(columns, TEXTOID, -1, false, TYPALIGN_INT, &names, &nulls, &n);
  for (int i = 0; i < n; ++i) {
    if (nulls[i]) elog(ERROR, "dptrain: shard_guard: NULL column name");
    const char* column = TextDatumGetCString(names[i]);
    const AttrNumber a = get_attnum(relid, column);
    if (a == InvalidAttrNumber) refuse(relid, psprintf("has no column \"%s\"", column));
    if (!builtin_column_type(get_atttype(relid, a)))
      refuse(relid, psprintf("has a column \"%s\" of a type that is not built in", column));
  }
}

}  // namespace
}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_shard_guard);

// dptrain.shard_guard(relation oid, columns text[]) -> true, or ERROR.
// Called once per row; the relation checked last is remembered for the
// statement (fn_extra), so a shard is checked at its first row. The check
// holds for the rest of the statement: the scan holds its lock on the
// relation, which every change of its kind, policies or column types needs.
Datum dptrain_shard_guard(PG_FUNCTION_ARGS) {
  const Oid relid = PG_GETARG_OID(0);
  Oid* checked = static_cast<Oid*>(fcinfo->flinfo->fn_extra);
  if (checked != nullptr && *checked == relid) PG_RETURN_BOOL(true);
  dptrain::pg::check_shard(relid, PG_GETARG_ARRAYTYPE_P(1));
  if (checked == nullptr) {
    checked = static_cast<Oid*>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(Oid)));
    fcinfo->flinfo->fn_extra = checked;
  }
  *checked = relid;
  PG_RETURN_BOOL(true);
}

}  // extern "C"
