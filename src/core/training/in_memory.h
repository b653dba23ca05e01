// Training on a table held in memory, without a database: the same Trainer
// and the same epoch_state transition the SQL aggregate runs, one row at a
// time in a given order. For the privacy audit (thousands of short runs),
// benchmarks and tests; dp_train and `dptrain train` feed the very same code
// from PostgreSQL.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model.h"
#include "core/privacy/random_source.h"
#include "core/training/trainer.h"

namespace dptrain {

// m rows of d features (row-major) with their class index, as the shuffled
// temp table of a SQL run holds them: 0 .. K-1, and for a binary problem
// 0 = negative, 1 = positive.
struct InMemoryTable {
  int dim = 0;
  std::vector<double> features;  // rows() * dim values
  std::vector<double> labels;    // rows() class indices

  std::int64_t rows() const { return static_cast<std::int64_t>(labels.size()); }
  const double* row(std::int64_t i) const { return features.data() + static_cast<std::size_t>(i) * dim; }
  void add(const std::vector<double>& x, double label);  // throws unless x.size() == dim
};

// The public facts of `table` into `config` (rows, dim), as training_prepare
// reports them; classes are left to the caller.
void describe_table(const InMemoryTable& table, TrainingConfig& config);

// Runs all planned epochs of `trainer` over `table`, rows in `order` (a
// permutation of 0 .. m-1; empty = table order). If the plan reshuffles, every
// epoch after the first uses a fresh uniformly random permutation drawn from
// `reshuffle_rng` (required then). Returns trainer.finish(0).
Model train_in_memory(Trainer& trainer, const InMemoryTable& table, std::vector<std::int64_t> order = {},
                      privacy::RandomSource* reshuffle_rng = nullptr);

// Fisher-Yates with RandomSource::uniform_below: a uniformly random permutation.
void shuffle(std::vector<std::int64_t>& order, privacy::RandomSource& rng);

}  // namespace dptrain
