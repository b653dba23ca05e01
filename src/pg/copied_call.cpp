// One written call of dp_train or dp_tune run several times because the
// parser copied it. PostgreSQL expands SELECT (dp_train(...)).* into one call
// per column of the result: eight runs of dp_train, each charged its
// epsilon, each a different model, and one row mixing their columns (the
// model_id of one run beside the weights of another). Their planner support
// function (SUPPORT dptrain.copied_call_support, sql/18_copied_call.sql)
// refuses such a statement when it is planned, before anything runs or is
// charged. A call in FROM is never copied.
//
// Planning time, not the call: dp_train's SET clauses make PostgreSQL load
// the library at its first call, inside the statement's run, so a check at
// the call (through executing_statement.h's ExecutorRun hook, installed with
// the library) missed the first statement of a session (measured). The
// planner calls the support function of every call it simplifies, with the
// query being planned; it does not say which of the copies it simplifies
// (its FuncExpr has no location), so the whole query level is checked
// (its VALUES lists included). Not seen: copies of a wrapper of the user's
// ((my_sql_or_plpgsql_function(...)).*), each of whose calls runs dp_train.
#include "pg_glue.h"
#include "tree_walker.h"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
}

namespace {

using dptrain::pg::walker;  // tree_walker.h

// The calls of one function in one query level, by place in the query text.
struct Calls {
  Oid funcid;
  List* locations;
  int copied_location;  // a place that holds two calls, or -1
};

bool find_copies(Node* node, void* arg) {
  if (node == nullptr) return false;
  if (IsA(node, Query)) return false;  // another query level: planned on its own
  auto* c = static_cast<Calls*>(arg);
  if (IsA(node, FuncExpr)) {
    const auto* f = reinterpret_cast<const FuncExpr*>(node);
    if (f->funcid == c->funcid && f->location >= 0) {
      if (list_member_int(c->locations, f->location)) {
        c->copied_location = f->location;
        return true;
      }
      c->locations = lappend_int(c->locations, f->location);
    }
  }
  return expression_tree_walker(node, walker(find_copies), arg);
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_copied_call_support);

Datum dptrain_copied_call_support(PG_FUNCTION_ARGS) {
  Node* request = reinterpret_cast<Node*>(PG_GETARG_POINTER(0));
  if (!IsA(request, SupportRequestSimplify)) PG_RETURN_POINTER(nullptr);
  const auto* r = reinterpret_cast<SupportRequestSimplify*>(request);
  if (r->root == nullptr || r->root->parse == nullptr) PG_RETURN_POINTER(nullptr);
  Calls calls;
  calls.funcid = r->fcall->funcid;
  calls.locations = NIL;
  calls.copied_location = -1;
  (void) query_tree_walker(r->root->parse, walker(find_copies), &calls, QTW_IGNORE_RANGE_TABLE);
  // A VALUES list of several rows (INSERT ... VALUES ((f(...)).*), (...), or any
  // VALUES in FROM) is a range table entry, which the walk above skips: its
  // copies ran 8 times per written call, unrefused (measured: 16 runs for two).
  ListCell* cell;
  foreach (cell, r->root->parse->rtable) {
    const auto* rte = static_cast<const RangeTblEntry*>(lfirst(cell));
    if (calls.copied_location < 0 && rte->rtekind == RTE_VALUES)
      (void) find_copies(reinterpret_cast<Node*>(rte->values_lists), &calls);
  }
  if (calls.copied_location >= 0) {
    const char* function = get_func_name(calls.funcid);
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("this call of %s would run once per column of its result", function),
                    errdetail("PostgreSQL evaluates (%s(...)).* as one call per column: each a run of its own, "
                              "charged, with a model of its own. Nothing was run or charged.",
                              function),
                    errhint("Call it in FROM: SELECT * FROM %s(...), or SELECT m.* FROM %s(...) m.", function,
                            function)));
  }
  PG_RETURN_POINTER(nullptr);
}

}  // extern "C"
