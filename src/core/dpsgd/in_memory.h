// The in-memory driver of a DP-SGD run: the same passes a database driver would run (lots
// t..t+m-1 streamed, in lot order, into the lot state; lot_state.h), over rows held in
// memory. Used by the tests and by bench/dpsgd_prototype.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dpsgd/plan.h"
#include "core/dpsgd/poisson_lots.h"

namespace dptrain::dpsgd {

// n rows of d features (row-major) with labels (clipped_gradient.h); row number r in
// 1..n is x[(r-1)*d ...].
struct LabeledRows {
  const double* x;
  const int* labels;
  std::int64_t rows;
  int dim;
};

// One pass: the lots after the state's last finished lot through `last`, each drawn from
// the state's key, n and q (poisson_lots.h), rows fed in lot order, then finish(): what
// a set-returning function streaming lots into an aggregate does in one query.
void run_pass(std::vector<double>& state, const LabeledRows& data, std::uint64_t last);

// A whole run of plan.steps lots in passes of `lots_per_pass` (theta0 = 0). Returns the
// final lot state (theta: lot_state::theta).
std::vector<double> train_in_memory(const DpSgdPlan& plan, const LabeledRows& data,
                                    const privacy::RandomSource::Key& key, bool seeded,
                                    std::uint64_t lots_per_pass = 1000);

}  // namespace dptrain::dpsgd
