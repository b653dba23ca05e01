// Who a training run acts for, and with whose rights each of its steps runs
// (docs/governance.md, "Identities"). dp_train is SECURITY INVOKER with a
// fixed search_path; it switches identity per step in C:
//
//  * caller  the role in effect where the function was called (GetUserId()
//            on entry: current_user at the call site, also under SET ROLE or
//            inside another SECURITY DEFINER function). Its budget is checked
//            and charged; it is recorded as the model's creator.
//  * reader  whose rights read the source relation: the caller if it may
//            SELECT the label and feature columns, otherwise the relation's
//            owner (only when the owner granted the caller a budget). Code the
//            relation may run while being read (views, row security policies,
//            the functions in them) runs as this role inside a
//            security-restricted operation with GUC changes undone afterwards,
//            as PostgreSQL runs VACUUM, ANALYZE and REFRESH MATERIALIZED VIEW
//            as the table owner. It never runs as the extension owner.
//  * runner  the owner of the dptrain function (the extension owner): runs
//            the epoch aggregate over the shuffled temp table and writes
//            dptrain.models and the ledger. Only dptrain's own SQL runs with
//            its rights.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// The committed charge of a private run (ledger.h): what it paid, and the
// id reserved for its model. model_id 0: not charged (yet).
struct Charge {
  int64 model_id = 0;
  double epsilon = 0;
  double delta = 0;
};

struct RunCharge;  // ledger.h

struct RunIdentities {
  Oid caller;
  Oid reader;
  Oid runner;
  bool caller_reads;  // the caller may read the data itself (reader == caller)
  Charge charge;
  // Set by begin_run from the public facts until the run is charged: what a
  // failed read of the source costs a role without read access before the
  // charge (reading_errors.h), so that an error costs what a release costs.
  const RunCharge* pending_charge = nullptr;
};

// An identity switch; undone by restore_identity (or by the transaction or
// subtransaction abort if an ERROR comes first).
struct IdentitySwitch {
  Oid saved_user;
  int saved_context;
  int guc_level;
};
// `restricted`: a security-restricted operation (no temp objects, no SET
// ROLE), for steps that may run code owned by someone else.
void switch_identity(IdentitySwitch* s, Oid role, bool restricted);
void restore_identity(const IdentitySwitch* s);

// search_path = pg_catalog, pg_temp until unpin_search_path (or the abort
// of the (sub)transaction, on ERROR): for the SQL of a function called once
// per row, which has no SET clause (a SET clause costs a GUC save and
// restore on every call) and resolves no name outside these calls.
int pin_search_path();
void unpin_search_path(int level);

// row_security = on until unpin_search_path(level) (or the abort): around
// dptrain's own reads of its tables as the caller (dptrain.models, whose
// policies choose the models a role sees). Under a caller's row_security =
// off (pg_dump's setting) PostgreSQL refuses such a query (42501 "query
// would be affected by row-level security policy") rather than apply the
// policies; on applies them, and never shows more. Not for a source table:
// its read stays the caller's, under the caller's setting.
int pin_row_security();

// The controller's path (dptrain.training_prepare, training_prepare_run):
// everything with the caller's own rights (it needs SELECT on the data and
// EXECUTE on the epoch aggregate anyway).
RunIdentities caller_identities();

// The owner of the SQL function being called (the extension owner).
Oid function_owner(FunctionCallInfo fcinfo);
Oid relation_owner(Oid relid);

// SELECT privilege (table-level or on the columns) of `role`.
bool can_read_columns(Oid relid, AttrNumber label, AttrNumber features, Oid role);
bool can_read_any_column(Oid relid, Oid role);

// Relation `relid` exists and can be trained on (table, view, matview,
// foreign or partitioned table), else ERROR. Returns its name.
char* require_training_relation(Oid relid);

// A run of `caller`, who may not read the columns, reads the source with its
// owner's rights (RunIdentities::reader). Refused (42501) where the source
// applies the rights or policies of whoever reads it -- row-level security
// on it, or a security_invoker view -- and `caller` would be subject to them:
// read as the owner, the owner's rules would apply instead of the caller's
// (docs/governance.md, "Row-level security").
void refuse_owner_read_of_invoker_rules(Oid relid, const char* relname, Oid caller);

// USAGE on the relation's schema, else 42501: PostgreSQL lets nobody use a
// relation in a schema it may not use, and a role without read access
// reads as the owner, who may (a relation passed by OID needs no lookup).
void require_schema_usage(Oid relid, Oid caller);

// A quoted role name for SQL text.
const char* quoted_role(Oid role);

}  // namespace dptrain::pg
