#include "shard_guard.h"

extern "C" {
#include "access/relation.h"
#include "access/transam.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "parser/parse_func.h"
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
  const Oid owner = rel->rd_rel->relowner;
  relation_close(rel, AccessShareLock);
  // The owner by name (the same role on every node): a literal of
  // dptrain.role_ref, whose input function -- in this library -- each node
  // calls while it parses the statement, which loads the library (and its
  // planner hook: executing_statement.h) before the statement is planned.
  return psprintf("dptrain.shard_guard(ARRAY[%s]::pg_catalog.text[], %s, %s::dptrain.role_ref)", columns.data,
                  has_row_security(relid) ? "true" : "false", quote_literal_cstr(GetUserNameFromId(owner, false)));
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

}  // namespace

// One relation the statement reads on this node.
void check_guarded_relation(Oid relid, Datum* columns, int ncolumns, bool row_security, Oid owner) {
  const char kind = get_rel_relkind(relid);
  if (kind == RELKIND_VIEW) refuse(relid, "is a view");
  if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE) refuse(relid, "is not a plain table");
  HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
  if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for relation %u", relid);
  const Oid relowner = reinterpret_cast<Form_pg_class>(GETSTRUCT(t))->relowner;
  ReleaseSysCache(t);
  if (relowner != owner) {
    const char* found = GetUserNameFromId(relowner, true);
    const char* expected = OidIsValid(owner) ? GetUserNameFromId(owner, true) : nullptr;
    refuse(relid, psprintf("belongs to role %s, not to the table's owner %s", found ? found : "?",
                           expected ? expected : "(unknown here)"));
  }
  if (!row_security && has_row_security(relid)) refuse(relid, "has row-level security");
  for (int i = 0; i < ncolumns; ++i) {
    const char* column = TextDatumGetCString(columns[i]);
    const AttrNumber a = get_attnum(relid, column);
    if (a == InvalidAttrNumber) refuse(relid, psprintf("has no column \"%s\"", column));
    if (!builtin_column_type(get_atttype(relid, a)))
      refuse(relid, psprintf("has a column \"%s\" of a type that is not built in", column));
  }
}

namespace {

// PostgreSQL's walkers take an old-style bool (*)() (PostgreSQL 15).
using Walker = bool (*)();
template <typename F>
Walker walker(F f) {
  return reinterpret_cast<Walker>(reinterpret_cast<void (*)()>(f));
}

struct GuardedQuery {
  Oid guard;          // dptrain.shard_guard's OID
  FuncExpr* call;     // its first call with constant arguments, if any
  List* relations;    // every relation the query reads (OIDs), views and their tables included
};

bool find_guard_and_relations(Node* node, GuardedQuery* g) {
  if (node == nullptr) return false;
  if (IsA(node, RangeTblEntry)) {
    const RangeTblEntry* rte = reinterpret_cast<RangeTblEntry*>(node);
    if (rte->rtekind == RTE_RELATION) g->relations = lappend_oid(g->relations, rte->relid);
    return false;  // its subquery, functions, ... are walked by range_table_walker
  }
  if (IsA(node, Query))
    return query_tree_walker(reinterpret_cast<Query*>(node), walker(find_guard_and_relations), g,
                             QTW_EXAMINE_RTES_BEFORE);
  if (IsA(node, FuncExpr) && g->call == nullptr) {
    FuncExpr* f = reinterpret_cast<FuncExpr*>(node);
    if (f->funcid == g->guard && list_length(f->args) == 3) g->call = f;
  }
  return expression_tree_walker(node, walker(find_guard_and_relations), g);
}

Oid guard_function() {
  return LookupFuncName(list_make2(makeString(pstrdup("dptrain")), makeString(pstrdup("shard_guard"))), -1, nullptr,
                        true);
}

planner_hook_type previous_planner = nullptr;

// Before a statement that calls the guard is planned: planning
// const-simplifies expressions (an IMMUTABLE function of a view's, of an
// index's predicate or of a policy, with constant arguments), so the
// relations it reads are checked first, as the guard checks them when it
// runs (docs/distributed.md section 9.6).
PlannedStmt* plan_checked(Query* parse, const char* query_string, int options, ParamListInfo params) {
  if (query_string != nullptr && strstr(query_string, "shard_guard") != nullptr)
    check_guarded_query(parse);
  return previous_planner ? previous_planner(parse, query_string, options, params)
                          : standard_planner(parse, query_string, options, params);
}

}  // namespace

void check_guarded_query(Query* parse) {
  GuardedQuery g = {guard_function(), nullptr, NIL};
  if (!OidIsValid(g.guard)) return;
  find_guard_and_relations(reinterpret_cast<Node*>(parse), &g);
  if (g.call == nullptr) return;
  // Its arguments as constants: ARRAY['y', 'x'] is an array constructor
  // until it is folded (of built-in text constants: no one's code).
  Node* args[3];
  for (int i = 0; i < 3; ++i) {
    args[i] = eval_const_expressions(nullptr, static_cast<Node*>(list_nth(g.call->args, i)));
    if (!IsA(args[i], Const))
      ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                      errmsg("the arguments of dptrain.shard_guard must be constants")));
  }
  const Const* columns = castNode(Const, args[0]);
  const Const* row_security = castNode(Const, args[1]);
  const Const* owner = castNode(Const, args[2]);
  if (columns->constisnull || row_security->constisnull || owner->constisnull) return;  // STRICT: no rows anyway
  Datum* names;
  bool* nulls;
  int n;
  deconstruct_array(DatumGetArrayTypeP(columns->constvalue), TEXTOID, -1, false, TYPALIGN_INT, &names, &nulls, &n);
  for (int i = 0; i < n; ++i)
    if (nulls[i]) elog(ERROR, "dptrain: shard_guard: NULL column name");
  // The table an INSERT ... SELECT writes (the run's copy) is written, not read.
  const Oid target = parse->resultRelation > 0 ? rt_fetch(parse->resultRelation, parse->rtable)->relid : InvalidOid;
  ListCell* lc;
  foreach (lc, g.relations)
    if (lfirst_oid(lc) != target)
      check_guarded_relation(lfirst_oid(lc), names, n, DatumGetBool(row_security->constvalue),
                             DatumGetObjectId(owner->constvalue));
}

void install_shard_guard_planner_hook() {
  previous_planner = planner_hook;
  planner_hook = plan_checked;
}

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_shard_guard);

// dptrain.shard_guard(columns text[], row_security boolean, owner
// dptrain.role_ref) -> true, or ERROR 55000. (Checked before planning too:
// check_guarded_query.) Checks every relation (RTE_RELATION) of the statement whose
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
  const Oid owner = PG_GETARG_OID(2);
  ListCell* lc;
  foreach (lc, statement->rtable) {
    const RangeTblEntry* rte = lfirst_node(RangeTblEntry, lc);
    if (rte->rtekind == RTE_RELATION) dptrain::pg::check_guarded_relation(rte->relid, columns, n, row_security, owner);
  }
  fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, 1);
  PG_RETURN_BOOL(true);
}

}  // extern "C"
