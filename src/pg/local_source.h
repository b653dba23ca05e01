// Reading a plain local table in place (docs/performance.md, "Reading in
// place"). A run whose passes are all exact sums over the rows
// (Algorithm::reads_sums_only: AMP, the optimum, P-FW, DP-AGD) does not
// depend on the order of the rows, so it needs no random permutation and no
// copy: its passes read the source itself, under one snapshot (the same rows
// in every pass), and PostgreSQL may scan it with parallel workers (the
// gradient aggregate is PARALLEL SAFE, its combine an exact sum).
//
// Only for a caller who may read the table, and only for a plain heap table
// without row security and without inheritance children: the passes run
// the engine's aggregate, which PUBLIC may not execute, so they read the
// table with the runner's rights, as the distributed passes read the shards
// (distributed_source.h); reading such a table runs nobody's code. Views,
// foreign, partitioned and Citus tables, encoded feature columns and roles
// without read access keep the shuffled copy.
#pragma once

#include "core/training/config.h"
#include "training_data.h"

namespace dptrain::pg {

// Whether a run of `algorithm` does not depend on the order of the rows
// (Algorithm::order_free): its copy, if it needs one, is not shuffled
// (docs/performance.md, "Order-free copies").
bool algorithm_is_order_free(const std::string& algorithm);

// After inspect_training_data (and detect_distributed_source): whether the
// run of `c` may read `relid` in place. Requires SPI_connect().
bool can_read_in_place(Oid relid, const char* label, const char* features, const dptrain::TrainingConfig& c, const RunIdentities& ids,
                       const PreparedData& prep);

// Marks `prep` as read in place: no copy (shuffled stays NULL), the rows
// through prep->x_expr / prep->y_expr over the source.
void read_in_place(const RunIdentities& ids, PreparedData* prep);

// Around the passes of a run read in place: registers one snapshot (taken
// now) that every pass reads under, and returns it; release with
// end_in_place_passes.
Snapshot begin_in_place_passes();
void end_in_place_passes(Snapshot snapshot);

// Runs the pass statement `sql` ($1 = float8[] `input`) under `snapshot`,
// planned so that PostgreSQL may run it in parallel; the result as
// SPI_execute_with_args leaves it (SPI_tuptable). ERROR, before it runs, if
// the statement as parsed reads anything but table `relid` ONLY (its name
// is resolved again on each pass: statement_checks.h).
int execute_in_place_pass(const char* sql, Datum input, Snapshot snapshot, Oid relid);

}  // namespace dptrain::pg
