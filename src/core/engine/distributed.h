// Training on a Citus hash-distributed table without copying its rows to
// the coordinator (docs/distributed.md, sections 2 and 8). The driver reads
// the source in place: every pass becomes one statement over the
// distributed table that Citus pushes down to the shards (a partial
// aggregate per shard on the workers, the combine on the coordinator).
//
//   * SGD epochs: per-shard permutation SGD, each shard in the order of
//     dptrain.shuffle_key(row key, epoch key), P local passes, averaged with
//     weights n_s/n by the aggregate's combine. The run object plans the
//     steps and checks the per-shard PSGD sensitivity (EpochRun, with
//     plan_distributed_epochs below); the noise is added once, by the run.
//   * Gradient/loss and evaluation passes: exact sums, the same aggregate
//     as on a plain table.
//   * Everything else (noise per batch, sampled rows, grouped rows, splits)
//     is refused before any budget is charged (check_distributed).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/engine/pass.h"
#include "core/model.h"
#include "core/training/config.h"

namespace dptrain {
class EpochAlgorithm;
}

namespace dptrain::distributed {

// How the driver reads the source: SQL expressions over the distributed
// relation, made by the driver from the catalog (they are the same rows and
// values the copy of a plain table would hold).
struct Source {
  std::string relation;  // schema-qualified, quoted
  std::string x;         // the features as float8[] (rows a run cannot use already replaced)
  std::string y;         // the class index as float8
  std::string row_key;   // the distribution column as int8 (the shuffle's row key)
  // A condition with constant arguments, evaluated on each shard once,
  // before any of its rows is fetched (a one-time filter):
  // dptrain.shard_guard(columns, row_security) (src/pg/shard_guard.h).
  // Empty: none (a local table read in place).
  std::string guard;
};

// The statement of `pass` over the distributed source (one float8[] row,
// $1 = the pass input, as pass_sql). Throws Error(NotImplemented) for pass
// kinds that cannot run on a distributed table.
std::string pass_sql(const Pass& pass, const Source& source);

// The part of a keyed tuning split a row is in (docs/tuning.md section 5),
// as SQL over the row key: dptrain.tuning_part(row_key, split key words,
// parts). The passes filter by it and dp_tune counts the parts by it, so
// both read the same partition.
std::string tuning_part_sql(const std::string& row_key, const std::vector<double>& split_key, int parts);
// The $1 of pass_sql: the pass's input, but for a gradient/loss pass its
// request alone (gradient_state::request_only), which the aggregate expands
// on its first row. Citus sends $1 to each shard as a literal and copies the
// aggregate's arguments into one record per row it reads (worker_partial_agg):
// AMP's Hessian request (K d^2 zeros) was copied n times per pass (measured:
// 200,000 x 54 on 4 shards, a gradient + Hessian pass 572-661 ms with the
// whole state, 464-546 ms with the request alone; docs/distributed.md).
std::vector<double> pass_input(Pass& pass);  // moves it out of `pass`

// Refuses (Error(NotImplemented) = SQLSTATE 0A000, with a hint) a run that
// cannot train on a distributed table: algorithms whose noise is added per
// batch or that need sampled rows, grouped rows or splits, averaged
// iterates, data-dependent stopping; then plans the run once (throws what
// the plan throws). Pure: reads no data. The drivers call it before the
// budget is charged.
void check(const TrainingConfig& config);

// The per-shard PSGD plan of an epoch run on a distributed table.
struct EpochPlan {
  StepSchedule schedule;        // the step the shards take (the remedy of section 3 when it applies)
  int local_passes = 1;         // P
  std::int64_t updates_per_epoch = 0;  // U = max_s ceil(P n_s / b)
  double sensitivity = 0;       // Delta of per-shard PSGD + averaging (distributed_sensitivity.h)
  nlohmann::json record;        // for the model's privacy metadata
};

// From the algorithm's sequential plan. Convex constant step: the
// sequential-equivalent step and passes (distributed::sequential_equivalent,
// docs/distributed.md section 3), slightly shortened so that rounding never
// lifts the bound above the sequential one. Other schedules: the plan's
// schedule, one pass. A private plan's noise is calibrated to its
// "sensitivity"; the run is refused unless the per-shard PSGD bound is no
// larger (then the noise covers it: equal for the convex constant step;
// smaller otherwise, see calibrate_noise).
EpochPlan plan_epochs(const TrainingConfig& config, const TrainingPlan& plan);

// When the per-shard bound of `epochs` (plan_epochs) is below the
// sequential one the plan's noise is calibrated to (the strongly convex
// schedule), has the algorithm re-calibrate its noise to it
// (EpochAlgorithm::calibrate_output_noise) and records which bound the
// noise covers in epochs.record. The bound is computed from the public
// shard sizes (docs/distributed.md sections 2 and 9.3). An algorithm
// without the hook keeps the larger noise (recorded as conservative).
void calibrate_noise(const TrainingConfig& config, const EpochAlgorithm& algorithm, TrainingPlan& plan,
                     EpochPlan& epochs);

// The distribution facts and the assumption the guarantee rests on, for
// the model's metadata (details.data.distribution): per-shard PSGD (and
// dp_tune's keyed split) rest on public shard sizes, replace-one keeping the
// row's key. With `exact_sums` (a run whose every pass is an exact sum over
// the shards: AMP, DP-AGD, P-FW) the shard sizes enter nothing and the run
// keeps its algorithm's own relation (privacy.adjacency).
nlohmann::json describe(const TrainingConfig& config, bool exact_sums = false);
// Adds describe() to a released model trained on a distributed source
// (details.data.distribution), if the run did not already; exact sums when
// the algorithm reads sums only.
void annotate(Model& model, const TrainingConfig& config);
// For a role without read access: the shard sizes in the metadata become
// their count and the largest (what the shard step already reveals), not
// the size of every shard (docs/distributed.md section 9).
void redact_shard_rows(Model& model);

}  // namespace dptrain::distributed
