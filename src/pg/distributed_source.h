// A Citus hash-distributed source table, trained in place
// (docs/distributed.md section 8; core/engine/distributed.h): detection
// from the Citus catalog, the checks of the distribution column, the shard
// row counts (the public shape of the per-shard PSGD bound), and the SQL
// expressions the pushed-down passes read the rows with.
#pragma once

#include "training_data.h"

namespace dptrain::pg {

// After inspect_training_data: fills prep->distributed and, for a
// hash-distributed table, the rest of the distributed fields. Raises
// 22023 when the distribution column is the label or the features (a
// replaced row would change shard), 0A000 when it is not an integer
// column or the table has row-level security. Plain tables, reference
// tables and databases without Citus: prep->distributed = false.
// Requires SPI_connect().
void detect_distributed_source(Oid relid, const char* label, const char* features, const RunIdentities& ids,
                               PreparedData* prep);

// The keyed split of private tuning (docs/tuning.md section 5): the rows of
// every (part, shard), rows[p * prep.nshards + s] for part p + 1 and shard s
// (shard id order), counted like the n_s with the reader's rights, in one
// statement checked on the coordinator and guarded on every worker, grouping
// each shard's rows by the part dptrain.tuning_part(row key, split_key,
// parts) gives them. `split_key`: kappa's 4 words. Only the counts reach the
// coordinator. Call after detect_distributed_source, before the charge.
int64* count_part_rows(Oid relid, const RunIdentities& ids, const PreparedData& prep, const double* split_key,
                       int parts);

// prep->x_expr and prep->y_expr: the rows over the source as the copy of a
// plain table would hold them (training_copy.cpp): for a reader, the features
// as float8[] and the class index; for a role without read access, every row a
// run cannot use replaced by the fixed public row. Shared by the distributed
// and the local in-place passes (local_source.h). Needs prep->classes_array.
void source_row_expressions(const RunIdentities& ids, PreparedData* prep);

// True if Citus is installed and `relid` is one of its tables (distributed,
// reference or Citus-local): Citus plans every query on it.
bool is_citus_table(Oid relid);

// A Citus table that reading `relid` (not itself one) reads too -- through a
// view, a row-security policy, an inheritance child or a partition, at any
// depth -- or InvalidOid (also without Citus). Such a read would reach the
// shards without the guard (shard_guard.h). Requires SPI_connect().
Oid citus_table_behind(Oid relid);

// SET LOCAL citus.propagate_set_commands = 'local',
// max_parallel_workers_per_gather = 0 (one sequential scan per shard, so a
// shard is one PSGD run, not several averaged by timing-dependent sizes) and
// extra_float_digits = 3 (the states travel as text, exactly),
// inside a GUC nest level; returns it for end_distributed_passes.
// `hidden`: the passes are kept from the caller (pass_messages.h), and the
// workers get debug_print_parse/_rewritten/_plan = off too: a caller's own
// SET LOCAL of them, propagated by Citus (citus.propagate_set_commands =
// 'local' is any role's setting) into the workers' transactions, wrote the
// plan of every shard query, the training state as a constant, to the
// workers' server logs (test/citus/worker_logs_hidden.sh).
int begin_distributed_passes(bool hidden);

// Runs the pushed-down pass statement `sql` ($1 = float8[] `input`), like
// SPI_execute_with_args, after checking that the statement as parsed reads
// the distributed table `relid` ONLY and nothing else (statement_checks.h:
// its schema.table name is resolved again on every pass; Citus plans in its
// planner hook, after the parse analysis that is checked).
int execute_distributed_pass(const char* sql, Datum input, Oid relid);
// Puts back the settings of begin_distributed_passes's level (here; Citus's
// connections keep theirs to the end of the transaction).
void end_distributed_passes(int level);

}  // namespace dptrain::pg
