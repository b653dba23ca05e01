// The guard of every statement that reads a Citus table's shards
// (docs/distributed.md section 9.6, docs/governance.md "Names resolved
// again").
//
// The coordinator checks each such statement against the table's OID
// (statement_checks.h), but each worker resolves a shard's name
// (schema.table_shardid) again when it parses its part, with nothing held
// between two statements: the table's owner (who owns the shards) or a
// schema's owner can put another relation at that name meanwhile, by hand
// on one worker (citus.enable_ddl_propagation is open to every role). So
// every statement reads the table through
//
//   (SELECT * FROM ONLY t AS dptrain_source
//    WHERE dptrain.shard_guard(ARRAY[columns], row_security)) AS dptrain_source
//
// The guard has only constant arguments: Citus deparses it into every
// shard's query, and each node's planner makes it a one-time filter (a
// gating Result above the scan), evaluated once before the first row of any
// relation is fetched -- before the scan's quals, its row-security policies,
// a view's expressions or the pass's casts. It looks at the statement it is
// part of (executing_statement.h): every relation that statement reads on
// this node must be a plain (or partitioned) table, with no row security
// unless the table on the coordinator has it, and the named columns of
// built-in types; otherwise 55000, naming the relation. A view at a shard's
// name is a relation of kind view in that list, whatever columns (tableoid
// included: a view may define one) it shows.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// A column type reading and casting which (to the built-in types the
// statements cast to) runs no role's code: a built-in type, a type owned by a
// superuser (only the owner of a cast's source or target type may create the
// cast), or a domain over one of those (PostgreSQL ignores casts from
// domains). An enum, composite or array type a role made may have casts of
// its own.
bool builtin_column_type(Oid type);

// The guard's refusal (SQLSTATE 55000), as a worker's error reaches the
// coordinator: reading_errors.cpp passes it on to a role without read access
// (it is about the catalog of a node, never about a row), without its CONTEXT.
inline constexpr const char* kShardGuardRefusal = "a shard of the source is not the plain table the run checked";

// The alias the guarded reads give the source.
inline constexpr const char* kShardGuardAlias = "dptrain_source";

// 0A000 "<source> reads the Citus table <table>", with `detail` and the
// hint to train on the Citus table itself (by relation OIDs; "?" for one
// that is gone).
pg_attribute_noreturn() void refuse_citus_read(Oid source, Oid table, const char* detail);

// The guard for reads of `relid` (a Citus table): its columns of built-in
// types, and whether it has row security on the coordinator.
char* shard_guard_sql(Oid relid);

// What a statement puts after FROM to read `relid`: its quoted name, or for
// a Citus table (Citus installed, SPI connected) the guarded subquery above
// (ONLY, but for a partitioned table). With `only`, the name is read ONLY
// as well (a plain table read in place). A relation that is not a Citus
// table but reads one (a view over it, say: distributed_source.h,
// citus_table_behind) is refused (0A000): its reads could not be guarded.
const char* guarded_source_sql(Oid relid, bool only = false);

// The guard's check of one relation a guarded statement reads on this node
// (ERROR 55000 naming it): a plain or partitioned table of role `owner`,
// without row security unless `row_security`, whose `columns` have built-in
// types.
void check_guarded_relation(Oid relid, Datum* columns, int ncolumns, bool row_security, Oid owner);

// The same check, before planning, of every relation (views and the
// relations they read included) of a statement that calls the guard with
// constant arguments. Planning runs code: an IMMUTABLE function with
// constant arguments in a view's definition, an index predicate or a policy
// is evaluated then. And the code of the statement's own expressions (not a
// view's or a policy's) must be a superuser's: each node looks its
// functions and types up again under its session's search_path. Called by
// the planner hook below.
void check_guarded_query(Query* parse);

// Whether a prepared (not yet executed) statement calls dptrain.shard_guard:
// it is one of dptrain's guarded reads of a Citus table
// (citus_read_barrier.h lets it read that table).
bool plan_calls_shard_guard(SPIPlanPtr plan);

// Installs the planner hook that calls check_guarded_query for a statement
// whose text names the guard, or that is planned without a text (Citus's
// local execution) (once, from _PG_init: the library is loaded
// while a guarded statement is parsed, by the input function of its
// dptrain.role_ref literal, so even a node's first guarded statement is
// checked before it is planned).
void install_shard_guard_planner_hook();

}  // namespace dptrain::pg
