// A training run over rows held in memory, driven exactly like the SQL glue
// drives the epoch aggregates (same Trainer, same states, same order of
// operations): permutation epochs for every algorithm but BST14, sampled
// batches from the run's key (the rows dptrain.sample_batches would return)
// for BST14. For tests, statistical checks of the noise, empirical privacy
// audits (test/privacy/audit/) and accuracy comparisons without a database.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/model.h"
#include "core/training/config.h"
#include "core/training/trainer.h"

namespace dptrain {

struct InMemoryData {
  std::vector<std::vector<double>> x;  // n rows of d features
  std::vector<double> y;               // class index: 0/1 (binary) or 0..K-1

  std::int64_t rows() const { return static_cast<std::int64_t>(x.size()); }
  int dim() const { return x.empty() ? 0 : static_cast<int>(x[0].size()); }
};

// Trains on `data` with `config` (rows and dim are taken from the data; the
// classes must be set). The permutation of each epoch (and the reshuffles)
// comes from `shuffle_seed`; as in SQL, it is public and plays no role in
// the privacy of any algorithm here.
Model train_in_memory(TrainingConfig config, const InMemoryData& data, std::uint64_t shuffle_seed);

// The same with a Trainer built by the caller (e.g. around a test-only
// Algorithm object) and the row order of the permutation epochs given:
// `order` is a permutation of 0 .. n-1 (empty = the data's order), used for
// the first epoch and for every epoch unless the plan reshuffles, in which
// case epochs 2.. use fresh permutations drawn with `reshuffler` (required
// then). Sampled-batch epochs (BST14) take their rows from the run's key and
// ignore the order. The Trainer's config must describe `data` (rows, dim).
// Returns trainer.finish(0).
Model run_in_memory(Trainer& trainer, const InMemoryData& data, std::vector<std::int64_t> order = {},
                    std::mt19937_64* reshuffler = nullptr);

}  // namespace dptrain
