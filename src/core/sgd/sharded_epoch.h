// One distributed epoch in memory, exactly as Citus runs the epoch
// aggregate dptrain.sgd_epoch on a distributed table: every shard's partial
// aggregate starts from the same state and runs the transition function over
// the shard's rows in the order given (its pending partial batch is left for
// the combine), the coordinator combines the partial states (count-weighted
// model averaging, epoch_state::combine) and the final function flushes.
// For the empirical privacy tests and the convergence study of distributed
// training (docs/distributed.md), without a database.
#pragma once

#include <vector>

#include "core/sgd/epoch_state.h"

namespace dptrain::epoch_state {

struct ShardedRows {
  const std::vector<std::vector<double>>* x = nullptr;  // every row of the table
  const std::vector<double>* y = nullptr;               // its label (-1/+1 or class index)
};

// `streams[s]` lists the rows shard s feeds, in order (a row may repeat: P
// local passes are P permutations of the shard, concatenated). Returns the
// state after the combine and the final flush; its update counter is the
// start's plus max_s ceil(|streams[s]| / b).
std::vector<double> sharded_epoch(const std::vector<double>& start, const ShardedRows& rows,
                                  const std::vector<std::vector<int>>& streams);

}  // namespace dptrain::epoch_state
