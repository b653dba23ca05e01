// Which runs can train on sparse rows (docs/sparse.md). A sparse table is
// prepared as a copy whose x column is dptrain.sparsevec; a pass kind can
// read it only if its aggregate has a sparse overload. The drivers call
// check() with the public facts before any budget is charged, so a run
// that would need an unsupported pass costs nothing and says what to do.
#pragma once

#include <string>
#include <vector>

#include "core/training/config.h"

namespace dptrain {
class Algorithm;
}

namespace dptrain::sparse {

// The algorithms whose passes (engine/pass.h) all have sparse overloads
// (Algorithm::reads_sparse_rows), for messages.
std::vector<std::string> supported_algorithms();

// Refuses (Error(NotImplemented) = SQLSTATE 0A000, naming the algorithm,
// with a hint to densify) a run that cannot read sparse rows: an algorithm
// whose reads_sparse_rows() is false, or a distributed source. Pure.
// (Private tuning splits the prepared table and evaluates candidates: both
// read sparse rows, so dp_tune only needs its candidates' algorithms checked.)
void check(const Algorithm& algorithm, const TrainingConfig& config);
// The same for config.algorithm (an unknown name: 22023, as make_algorithm).
void check(const TrainingConfig& config);

}  // namespace dptrain::sparse
