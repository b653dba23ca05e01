// The guard of the passes pushed down to a Citus table's shards
// (docs/distributed.md section 9.6).
//
// The coordinator checks every pass statement against the distributed
// table's OID (statement_checks.h), but each worker resolves the shard's
// name (schema.table_shardid) again, as dp_train's owner, and nothing there
// holds a lock between two passes: the table's owner (who owns the shards)
// or a schema's owner can put another relation at that name meanwhile. So
// every pass reads the shard under a scan qualifier
//
//   FROM ONLY t AS dptrain_source
//   WHERE dptrain.shard_guard(dptrain_source.tableoid, ARRAY[label, features, row key])
//
// which PostgreSQL evaluates on each row before the projection (the casts
// and functions the pass applies to the columns). It refuses (55000) the
// first row of a relation that is not a plain table, has row security, or
// whose columns read have a type whose casts may be someone's code. A view
// at the name has no tableoid: the worker refuses the statement when it
// parses it, before anything runs.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// A column type reading and casting which (to the built-in types the passes
// cast to) runs no role's code: a built-in type, a type owned by a superuser
// (only the owner of a cast's source or target type may create the cast), or
// a domain over one of those (PostgreSQL ignores casts from domains). An
// enum, composite or array type a role made may have casts of its own.
bool builtin_column_type(Oid type);

// The alias the passes give the distributed source, which the guard names.
inline constexpr const char* kShardGuardAlias = "dptrain_source";

// The guard expression for the passes over a distributed source whose
// passes read the columns `label`, `features` and `row_key` (unquoted names).
char* shard_guard_sql(const char* label, const char* features, const char* row_key);

}  // namespace dptrain::pg
