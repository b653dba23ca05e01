#include "statement_checks.h"
#include "tree_walker.h"

#include "citus_read_barrier.h"
#include "shard_guard.h"

extern "C" {
#include "catalog/dependency.h"
#include "commands/extension.h"
#include "nodes/nodeFuncs.h"
#include "utils/plancache.h"
}

namespace dptrain::pg {
namespace {

bool refused = false;
int executing = 0;  // checked statements running (nested: the owner's code may call dptrain)

using dptrain::pg::walker;  // tree_walker.h

struct Walk {
  const SourceRead* r;
  Oid extension;
  bool source_read;
  StringInfoData problem;  // what the statement reads or calls instead
};

bool expression_bad(Node* node, void* context);
bool query_bad(Query* q, Walk* w, bool top);

// A function the statement's own text calls: with search_path pinned to
// pg_catalog, pg_temp (functions are never looked up in pg_temp), an
// unqualified name finds pg_catalog's, a dptrain.* name one of the
// extension's. Anything else means a name resolved to someone else's object.
bool function_bad(Oid funcid, void* context) {
  Walk* w = static_cast<Walk*>(context);
  const Oid ns = get_func_namespace(funcid);
  if (ns == PG_CATALOG_NAMESPACE || getExtensionOfObject(ProcedureRelationId, funcid) == w->extension) return false;
  appendStringInfo(&w->problem, "calls function %s", quote_qualified_identifier(get_namespace_name(ns), get_func_name(funcid)));
  return true;
}

// An expression of the statement's own text (never of the source's view or
// policies, which are not looked into).
bool expression_bad(Node* node, void* context) {
  if (node == nullptr) return false;
  Walk* w = static_cast<Walk*>(context);
  // a sublink's subquery, a CTE's query
  if (IsA(node, Query)) return query_bad(castNode(Query, node), w, false);
  if (check_functions_in_node(node, function_bad, context)) return true;
  return expression_tree_walker(node, walker(expression_bad), context);
}

// The subquery PostgreSQL's rewriter put in place of a view (PostgreSQL 15:
// an RTE_SUBQUERY whose first range-table entry is the view itself, the
// "OLD" entry of its ON SELECT rule, which carries its permission checks):
// the view's OID, or InvalidOid for a subquery of the statement's own text.
Oid expanded_view(const RangeTblEntry* rte) {
  if (rte->subquery == nullptr || rte->subquery->rtable == NIL) return InvalidOid;
  const RangeTblEntry* first = linitial_node(RangeTblEntry, rte->subquery->rtable);
  return first->rtekind == RTE_RELATION && first->relkind == RELKIND_VIEW ? first->relid : InvalidOid;
}

// schema.name, as it is called now (no OIDs in messages: tests print them).
const char* relation_name(Oid relid) {
  const char* name = get_rel_name(relid);
  const char* ns = name ? get_namespace_name(get_rel_namespace(relid)) : nullptr;
  return name && ns ? quote_qualified_identifier(ns, name) : "a dropped relation";
}

void describe_relation(Walk* w, Oid relid, const char* how) {
  appendStringInfo(&w->problem, "reads %s %s", how, relation_name(relid));
}

bool rte_bad(const RangeTblEntry* rte, int index, const Query* q, Walk* w, bool top) {
  const SourceRead& r = *w->r;
  switch (rte->rtekind) {
    case RTE_RELATION:
      if (rte->relid == r.source) {
        // ONLY: no child, no view, no policy (local_source.h).
        if (r.only && (rte->inh || rte->relkind != RELKIND_RELATION || rte->securityQuals != NIL)) {
          if (rte->inh) describe_relation(w, rte->relid, "the children of");
          else appendStringInfo(&w->problem, "reads %s with row security or not as a plain table",
                                relation_name(rte->relid));
          return true;
        }
        w->source_read = true;
        return false;  // its policies and children come with its OID
      }
      if (OidIsValid(r.insert_target) && top && rte->relid == r.insert_target && index == q->resultRelation)
        return false;
      describe_relation(w, rte->relid, "relation");
      return true;
    case RTE_SUBQUERY: {
      const Oid view = expanded_view(rte);
      if (!OidIsValid(view)) return query_bad(rte->subquery, w, false);
      if (view == r.source && !r.only) {
        w->source_read = true;
        return false;  // the view's definition, stored by OID: its owner's
      }
      describe_relation(w, view, "view");
      return true;
    }
    case RTE_FUNCTION:
      return expression_bad(reinterpret_cast<Node*>(rte->functions), w);
    case RTE_VALUES:
      return expression_bad(reinterpret_cast<Node*>(rte->values_lists), w);
    case RTE_JOIN:
      return expression_bad(reinterpret_cast<Node*>(rte->joinaliasvars), w);
    case RTE_CTE:     // its query is in cteList, walked with the query
    case RTE_RESULT:  // FROM-less
      return false;
    default:
      appendStringInfo(&w->problem, "reads a range-table entry of kind %d", static_cast<int>(rte->rtekind));
      return true;
  }
}

bool query_bad(Query* q, Walk* w, bool top) {
  const bool insert = top && q->commandType == CMD_INSERT && OidIsValid(w->r->insert_target);
  if ((q->commandType != CMD_SELECT && !insert) || q->utilityStmt != nullptr || q->hasModifyingCTE) {
    appendStringInfoString(&w->problem, "is not a plain query");
    return true;
  }
  // Everything but the range table; CTE queries and sublinks come back as Query.
  if (query_tree_walker(q, walker(expression_bad), w, QTW_IGNORE_RANGE_TABLE)) return true;
  ListCell* lc;
  foreach (lc, q->windowClause) {
    const WindowClause* wc = lfirst_node(WindowClause, lc);
    if (expression_bad(wc->startOffset, w) || expression_bad(wc->endOffset, w)) return true;
  }
  int index = 0;
  foreach (lc, q->rtable)
    if (rte_bad(lfirst_node(RangeTblEntry, lc), ++index, q, w, top)) return true;
  return false;
}

pg_attribute_noreturn() void refuse(const SourceRead& r, const char* problem) {
  refused = executing == 0;
  ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                  errmsg("the name of %s now finds another object", r.what),
                  errdetail("dptrain names %s in its statements; parsed now, a statement %s%s.",
                            relation_name(r.source), problem,
                            r.only ? "; it must read that table ONLY and nothing else" : ""),
                  errhint("Was a schema renamed during the call? Call again with the relation's current name.")));
}

void check_plan(SPIPlanPtr plan, const SourceRead& r) {
  Walk w;
  w.r = &r;
  w.extension = get_extension_oid("dptrain", false);
  initStringInfo(&w.problem);
  ListCell* s;
  foreach (s, SPI_plan_get_plan_sources(plan)) {
    const CachedPlanSource* source = static_cast<const CachedPlanSource*>(lfirst(s));
    // Never invalidated (it is not saved: prepare_checked, below).
    if (!source->is_valid || source->query_list == NIL) refuse(r, "was invalidated while it was checked");
    ListCell* q;
    foreach (q, source->query_list) {
      w.source_read = false;
      if (query_bad(lfirst_node(Query, q), &w, true)) refuse(r, w.problem.data);
      if (!w.source_read) refuse(r, "does not read it");
    }
  }
}

}  // namespace

// Why nothing parses the statement again between the check and its
// execution. SPI_execute_plan* takes the plan from GetCachedPlan, whose
// RevalidateCachedQuery analyses the text again only if the plan source is
// no longer valid, the search_path changed, or (the query has row security)
// the role or row_security changed. Invalidation messages (a schema renamed
// by another session, say) mark only *saved* plan sources invalid
// (PlanCacheRelCallback and its siblings walk plancache.c's saved_plan_list);
// a plan from SPI_prepare that is not kept (SPI_keepplan) is never on it. So
// the plan runs the checked query tree as long as the caller executes it
// under the role, search_path and row_security it was prepared under, which
// every caller does by executing it at once. The plan is used once and freed.
// (Planning the checked tree may still lock and expand inheritance children:
// by OID, from pg_inherits, never by name.)
SPIPlanPtr prepare_checked(const char* sql, int nargs, Oid* types, int cursor_options, const SourceRead& r) {
  SPIPlanPtr plan = SPI_prepare_cursor(sql, nargs, types, cursor_options);
  if (plan == nullptr) elog(ERROR, "dptrain: could not prepare: %s: %s", SPI_result_code_string(SPI_result), sql);
  check_plan(plan, r);
  return plan;
}

int execute_checked(const char* sql, int nargs, Oid* types, Datum* values, bool read_only, long tcount,
                    const SourceRead& r) {
  // Parallel workers allowed, as SPI_execute_with_args allows them.
  SPIPlanPtr plan = prepare_checked(sql, nargs, types, CURSOR_OPT_PARALLEL_OK, r);
  const int rc = run_reading(r.source, plan_calls_shard_guard(plan), [&] { return SPI_execute_plan(plan, values, nullptr, read_only, tcount); });
  SPI_freeplan(plan);
  return rc;
}

bool take_statement_refusal(const ErrorData* e) {
  const bool was = refused;
  refused = false;
  // PostgreSQL keeps the base name of __FILE__ (elog.c, errfinish).
  return was && e->sqlerrcode == ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE && e->filename != nullptr &&
         strcmp(e->filename, "statement_checks.cpp") == 0 && e->funcname != nullptr && strcmp(e->funcname, "refuse") == 0;
}

void forget_statement_refusal() { refused = false; }

void begin_checked_execution() { ++executing; }
void end_checked_execution() { --executing; }

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_check_source_statement);

// dptrain.check_source_statement(sql text, source regclass, only_table boolean)
// -> void: prepares `sql` (without running it) and raises the check's
// refusal, if any (test/regress/sql/statement_checks.sql). Revoked from
// PUBLIC: a test's window on the check, not an API.
Datum dptrain_check_source_statement(PG_FUNCTION_ARGS) {
  dptrain::pg::SourceRead r;
  r.source = PG_GETARG_OID(1);
  r.only = PG_GETARG_BOOL(2);
  const char* sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
  SPI_connect();
  SPIPlanPtr plan = dptrain::pg::prepare_checked(sql, 0, nullptr, 0, r);
  SPI_freeplan(plan);
  SPI_finish();
  PG_RETURN_VOID();
}

}  // extern "C"
