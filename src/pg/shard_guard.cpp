#include "shard_guard.h"
#include "tree_walker.h"

extern "C" {
#include "access/relation.h"
#include "access/transam.h"
#include "catalog/namespace.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/plancache.h"
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
  // role_ref's input reads a name as an identifier (downcased unless
  // quoted): quoted here, a role called "Alice" or "data owner" is not read
  // as alice, or as invalid name syntax.
  return psprintf("dptrain.shard_guard(ARRAY[%s]::pg_catalog.text[], %s, %s::dptrain.role_ref)", columns.data,
                  has_row_security(relid) ? "true" : "false",
                  quote_literal_cstr(quote_identifier(GetUserNameFromId(owner, false))));
}

namespace {

// The guard goes into statements that name the Citus table itself; a
// statement naming a view over it (or a table whose policy reads it) would
// reach its shards unguarded, and Citus may run such a view's part as a
// query of its own, before the statement.
void refuse_unguarded_citus_read(Oid relid) {
  const Oid behind = citus_table_behind(relid);
  if (!OidIsValid(behind)) return;
  refuse_citus_read(relid, behind,
                    "dptrain reads a Citus table only as the source itself, where each worker checks the shards "
                    "before any row is read; through a view, a policy or a child table it would not.");
}

}  // namespace

void refuse_citus_read(Oid source, Oid table, const char* detail) {
  const char* source_name = get_rel_name(source);
  const char* table_name = get_rel_name(table);
  ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                  errmsg("\"%s\" reads the Citus table \"%s\"", source_name ? source_name : "?",
                         table_name ? table_name : "?"),
                  errdetail("%s", detail),
                  errhint("Train on (or evaluate) the distributed table itself; pass features => ARRAY[...] "
                          "to encode its columns in the run.")));
}

const char* guarded_source_sql(Oid relid, bool only) {
  const char* name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
  if (!is_citus_table(relid)) {
    refuse_unguarded_citus_read(relid);
    return only ? psprintf("ONLY %s", name) : name;
  }
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

using dptrain::pg::walker;  // tree_walker.h

struct GuardedQuery {
  Oid dptrain;        // the dptrain schema's OID
  FuncExpr* call;     // the first call of dptrain.shard_guard, if any
  List* relations;    // every relation the query reads (OIDs), views and their tables included
};

// dptrain.shard_guard, by its name (no lookup through a schema's ACL: the
// hook sees every role's statements).
bool is_guard(const FuncExpr* f, Oid dptrain) {
  if (f->funcid < FirstNormalObjectId || list_length(f->args) != 3) return false;
  if (get_func_namespace(f->funcid) != dptrain) return false;
  const char* name = get_func_name(f->funcid);
  return name != nullptr && strcmp(name, "shard_guard") == 0;
}

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
  if (IsA(node, FuncExpr) && g->call == nullptr && is_guard(reinterpret_cast<FuncExpr*>(node), g->dptrain))
    g->call = reinterpret_cast<FuncExpr*>(node);
  return expression_tree_walker(node, walker(find_guard_and_relations), g);
}

// The code a guarded statement's own text calls (not a view's, refused
// with its relation, nor a declared policy's, the table owner's): each node
// parses the statement again under its session's search_path, and the shard
// queries Citus sends name pg_catalog's functions unqualified (cardinality(x),
// min(...)). A schema of that path a role may create in (public, for the
// database's owner; for every role where PUBLIC kept CREATE on it) can hold
// a better match -- public.cardinality(float8[]) beats
// pg_catalog.cardinality(anyarray) -- which then ran as the reader on the
// worker, after the guard had passed (measured). So every function (an
// aggregate's, an operator's, a type's I/O of a coercion) must be a
// superuser's, as the coordinator's statement checks demand of its text
// (statement_checks.h), and a domain coerced to (a path that puts pg_catalog
// last can make text a role's domain) must be one too.
struct OwnCode {
  StringInfoData problem;
};

bool query_code_bad(Query* q, OwnCode* c);

bool function_bad(Oid funcid, void* context) {
  HeapTuple t = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
  if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for function %u", funcid);
  const Form_pg_proc p = reinterpret_cast<Form_pg_proc>(GETSTRUCT(t));
  const Oid owner = p->proowner, ns = p->pronamespace;
  const char* name = pstrdup(NameStr(p->proname));
  ReleaseSysCache(t);
  if (superuser_arg(owner)) return false;
  appendStringInfo(&static_cast<OwnCode*>(context)->problem, "calls function %s",
                   quote_qualified_identifier(get_namespace_name(ns), name));
  return true;
}

bool expression_code_bad(Node* node, void* context) {
  if (node == nullptr) return false;
  OwnCode* c = static_cast<OwnCode*>(context);
  if (IsA(node, Query)) return query_code_bad(castNode(Query, node), c);  // a sublink's, a CTE's
  if (IsA(node, CoerceToDomain)) {
    const Oid domain = castNode(CoerceToDomain, node)->resulttype;
    HeapTuple t = SearchSysCache1(TYPEOID, ObjectIdGetDatum(domain));
    if (!HeapTupleIsValid(t)) elog(ERROR, "dptrain: cache lookup failed for type %u", domain);
    const Oid owner = reinterpret_cast<Form_pg_type>(GETSTRUCT(t))->typowner;
    ReleaseSysCache(t);
    if (!superuser_arg(owner)) {
      appendStringInfo(&c->problem, "coerces to the domain %s", format_type_be_qualified(domain));
      return true;
    }
  }
  if (check_functions_in_node(node, function_bad, context)) return true;
  return expression_tree_walker(node, walker(expression_code_bad), context);
}

// PostgreSQL 15 leaves a view's own RTE (the "OLD" entry of its rule) first
// in the subquery that replaced it: that relation check refuses the view.
bool expanded_view(const RangeTblEntry* rte) {
  if (rte->subquery == nullptr || rte->subquery->rtable == NIL) return false;
  const RangeTblEntry* first = linitial_node(RangeTblEntry, rte->subquery->rtable);
  return first->rtekind == RTE_RELATION && first->relkind == RELKIND_VIEW;
}

bool query_code_bad(Query* q, OwnCode* c) {
  // Everything but the range table (CTE queries and sublinks come back as Query).
  if (query_tree_walker(q, walker(expression_code_bad), c, QTW_IGNORE_RANGE_TABLE)) return true;
  ListCell* lc;
  foreach (lc, q->windowClause) {
    const WindowClause* wc = lfirst_node(WindowClause, lc);
    if (expression_code_bad(wc->startOffset, c) || expression_code_bad(wc->endOffset, c)) return true;
  }
  // The range table's own expressions; not a relation's securityQuals.
  foreach (lc, q->rtable) {
    const RangeTblEntry* rte = lfirst_node(RangeTblEntry, lc);
    Node* own = nullptr;
    switch (rte->rtekind) {
      case RTE_SUBQUERY:
        if (!expanded_view(rte) && query_code_bad(rte->subquery, c)) return true;
        continue;
      case RTE_FUNCTION: own = reinterpret_cast<Node*>(rte->functions); break;
      case RTE_TABLEFUNC: own = reinterpret_cast<Node*>(rte->tablefunc); break;
      case RTE_VALUES: own = reinterpret_cast<Node*>(rte->values_lists); break;
      case RTE_JOIN: own = reinterpret_cast<Node*>(rte->joinaliasvars); break;
      default: continue;
    }
    if (expression_code_bad(own, c)) return true;
  }
  return false;
}

planner_hook_type previous_planner = nullptr;

// Before a statement that calls the guard is planned: planning
// const-simplifies expressions (an IMMUTABLE function of a view's, of an
// index's predicate or of a policy, with constant arguments), so the
// relations it reads are checked first, as the guard checks them when it
// runs (docs/distributed.md section 9.6).
//
// Only a statement whose text names the guard can hold it; but Citus plans
// a shard query it runs in the coordinator's own backend (local execution)
// without its text (planner(query, NULL, ...)): such a query is looked
// into.
//
// Only the statement's own part of a string of several is searched: a
// simple query plans each statement with the whole string, and searching all
// of it for each was quadratic in its length, in every session that loaded
// the library (measured: 14,000 statements in a 126 kB string, 0.16 s -> 0.27
// s). A location PostgreSQL did not set (0, length 0) searches the rest.
bool names_guard(const Query* parse, const char* query_string) {
  const char* from = query_string + (parse->stmt_location > 0 ? parse->stmt_location : 0);
  if (parse->stmt_len > 0) return memmem(from, parse->stmt_len, "shard_guard", strlen("shard_guard")) != nullptr;
  return strstr(from, "shard_guard") != nullptr;
}

PlannedStmt* plan_checked(Query* parse, const char* query_string, int options, ParamListInfo params) {
  if (query_string == nullptr || names_guard(parse, query_string)) check_guarded_query(parse);
  return previous_planner ? previous_planner(parse, query_string, options, params)
                          : standard_planner(parse, query_string, options, params);
}

// ERROR 55000 if the expression, or the query, calls code that is not a superuser's.
void refuse_own_code(Node* expression, Query* query) {
  OwnCode code;
  initStringInfo(&code.problem);
  if (query ? query_code_bad(query, &code) : expression_code_bad(expression, &code))
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("%s", kShardGuardRefusal),
                    errdetail("On this node the statement %s, which is not a superuser's.", code.problem.data),
                    errhint("Does a schema of this session's search_path hold another role's functions or types?")));
}

}  // namespace

bool plan_calls_shard_guard(SPIPlanPtr plan) {
  const Oid dptrain = get_namespace_oid("dptrain", true);
  if (!OidIsValid(dptrain)) return false;
  ListCell* s;
  foreach (s, SPI_plan_get_plan_sources(plan)) {
    const CachedPlanSource* source = static_cast<const CachedPlanSource*>(lfirst(s));
    ListCell* q;
    foreach (q, source->query_list) {
      GuardedQuery g = {dptrain, nullptr, NIL};
      find_guard_and_relations(static_cast<Node*>(lfirst(q)), &g);
      if (g.call != nullptr) return true;
    }
  }
  return false;
}

void check_guarded_query(Query* parse) {
  GuardedQuery g = {get_namespace_oid("dptrain", true), nullptr, NIL};
  if (!OidIsValid(g.dptrain)) return;
  find_guard_and_relations(reinterpret_cast<Node*>(parse), &g);
  if (g.call == nullptr) return;
  // The guard's own arguments are evaluated below: their code first.
  refuse_own_code(reinterpret_cast<Node*>(g.call->args), nullptr);
  // Its arguments as constants: ARRAY['y', 'x'] is an array constructor
  // until it is folded (of built-in text constants: no one's code).
  Node* args[3];
  for (int i = 0; i < 3; ++i) {
    args[i] = eval_const_expressions(nullptr, static_cast<Node*>(list_nth(g.call->args, i)));
    if (!IsA(args[i], Const))
      ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                      errmsg("the arguments of dptrain.shard_guard must be constants"),
                      errhint("dptrain.shard_guard is dptrain's own guard of the passes it sends to the shards; "
                              "do not call it yourself.")));
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
  // Then the rest of the statement's own code (after the relations: an
  // impostor's cast is refused with its relation's name).
  refuse_own_code(nullptr, parse);
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
                    errdetail("It was evaluated outside the execution of a statement whose plan holds it."),
                    errhint("dptrain.shard_guard is dptrain's own guard of the passes it sends to the shards; "
                            "do not call it yourself.")));
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
