#include "shard_guard.h"

extern "C" {
#include "access/relation.h"
#include "access/transam.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "utils/array.h"
}

#include "distributed_source.h"
#include "executing_statement.h"

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
    // statements cast to built-in types only): a superuser's type has none
    // of anyone else's.
    if (superuser_arg(owner)) return true;
    if (!domain) return false;
    type = base;
  }
  return false;
}

namespace {

bool has_row_security(Oid relid) {
  HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for relation %u", relid);
  const Form_pg_class c = reinterpret_cast<Form_pg_class>(GETSTRUCT(t));
  const bool rls = c->relrowsecurity || c->relforcerowsecurity;
  ReleaseSysCache(t);
  return rls;
}

}  // namespace

char* shard_guard_sql(Oid relid) {
  StringInfoData columns;
  initStringInfo(&columns);
  Relation rel = relation_open(relid, AccessShareLock);
  const TupleDesc desc = RelationGetDescr(rel);
  for (int i = 0; i < desc->natts; ++i) {
    const Form_pg_attribute a = TupleDescAttr(desc, i);
    if (a->attisdropped || !builtin_column_type(a->atttypid)) continue;
    appendStringInfo(&columns, "%s%s", columns.len > 0 ? ", " : "", quote_literal_cstr(NameStr(a->attname)));
  }
  relation_close(rel, AccessShareLock);
  return psprintf("dptrain.shard_guard(ARRAY[%s]::pg_catalog.text[], %s)", columns.data,
                  has_row_security(relid) ? "true" : "false");
}

const char* guarded_source_sql(Oid relid, bool only) {
  const char* name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
  if (!is_citus_table(relid)) return only ? psprintf("ONLY %s", name) : name;
  const bool partitioned = get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE;
  return psprintf("(SELECT * FROM %s%s AS %s WHERE %s) AS %s", partitioned ? "" : "ONLY ", name, kShardGuardAlias,
                  shard_guard_sql(relid), kShardGuardAlias);
}

namespace {

pg_attribute_noreturn() void refuse(Oid relid, const char* problem) {
  const char* name = get_rel_name(relid);
  const char* ns = name ? get_namespace_name(get_rel_namespace(relid)) : nullptr;
  ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                  errmsg("%s", kShardGuardRefusal),
                  errdetail("On this node the statement reads %s, which %s.",
                            name && ns ? quote_qualified_identifier(ns, name) : "a relation that is gone", problem),
                  errhint("Was a shard or its schema changed on a worker?")));
}

// One relation the statement reads on this node.
void check_relation(Oid relid, Datum* columns, int ncolumns, bool row_security) {
  const char kind = get_rel_relkind(relid);
  if (kind == RELKIND_VIEW) refuse(relid, "is a view");
  if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE) refuse(relid, "is not a plain table");
  if (!row_security && has_row_security(relid)) refuse(relid, "has row-level security");
  for (int i = 0; i < ncolumns; ++i) {
    const char* column = TextDatumGetCString(columns[i]);
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

// dptrain.shard_guard(columns text[], row_security boolean) -> true, or
// ERROR 55000. Checks every relation (RTE_RELATION) of the statement whose
// plan holds this call: views stay in a statement's range table after they
// are expanded (their permission checks need them), and so do inheritance
// children and the relations a view reads. A call no executing statement
// holds (evaluated while planning, or outside an executor) is refused too.
// The check holds for the rest of the statement: the statement keeps its
// locks on the relations it read, which every change of their kind,
// policies or column types needs. Checked once per evaluation context.
Datum dptrain_shard_guard(PG_FUNCTION_ARGS) {
  if (fcinfo->flinfo->fn_extra != nullptr) PG_RETURN_BOOL(true);
  const PlannedStmt* statement = dptrain::pg::statement_holding(fcinfo->flinfo->fn_expr);
  if (statement == nullptr)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("dptrain.shard_guard must be a condition of the statement that reads the shard"),
                    errdetail("It was evaluated outside the execution of a statement whose plan holds it.")));
  Datum* columns;
  bool* nulls;
  int n;
  deconstruct_array(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, -1, false, TYPALIGN_INT, &columns, &nulls, &n);
  for (int i = 0; i < n; ++i)
    if (nulls[i]) elog(ERROR, "dptrain: shard_guard: NULL column name");
  const bool row_security = PG_GETARG_BOOL(1);
  ListCell* lc;
  foreach (lc, statement->rtable) {
    const RangeTblEntry* rte = lfirst_node(RangeTblEntry, lc);
    if (rte->rtekind == RTE_RELATION) dptrain::pg::check_relation(rte->relid, columns, n, row_security);
  }
  fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, 1);
  PG_RETURN_BOOL(true);
}

}  // extern "C"
