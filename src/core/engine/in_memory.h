// The engine's third driver: runs in memory, executing every pass kind the
// way its SQL does (engine/pass.h), for tests, statistical checks of the
// noise, empirical privacy audits (test/privacy/audit/) and accuracy
// comparisons without a database. Same run objects, same states, same
// order of operations as dp_train and `dptrain train`.
//
// A table here is what dptrain.training_prepare makes: the rows in a
// physical order (the permutation epochs follow it) and a numbering 1..m
// (the row numbers BST14's sampled batches fetch by). As in SQL, the
// prepared table numbers its rows in the data's order and stores them in a
// random order; a reshuffle changes the order and keeps the numbers; the
// parts of a split are numbered in their order.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/engine/run.h"
#include "core/model.h"
#include "core/training/config.h"

namespace dptrain {

struct InMemoryData {
  std::vector<std::vector<double>> x;  // n rows of d features
  std::vector<double> y;               // class index: 0/1 (binary) or 0..K-1
  // A distributed table (engine/distributed.h): the shard of every row
  // (0..S-1), the row's index being its row key. Empty: one plain table.
  // Distributed epoch passes run per shard as Citus runs them
  // (sgd/sharded_epoch.h), each shard ordered by the keyed shuffle.
  std::vector<int> shard;

  std::int64_t rows() const { return static_cast<std::int64_t>(x.size()); }
  int dim() const { return x.empty() ? 0 : static_cast<int>(x[0].size()); }
};

// Trains on `data` with `config` (rows and dim are taken from the data; the
// classes must be set). The order of the prepared table (and the reshuffles)
// comes from `shuffle_seed`; as in SQL, it is public and plays no role in
// the privacy of any algorithm.
Model train_in_memory(TrainingConfig config, const InMemoryData& data, std::uint64_t shuffle_seed);

// Drives `run` to the end over `data` and returns run.release(0).
// `order` is the physical order of the prepared table, a permutation of
// 0 .. n-1 (empty = the data's order); reshuffles draw from `reshuffler`
// (required if the run asks for one).
Model drive_in_memory(Run& run, const InMemoryData& data, std::vector<std::int64_t> order = {},
                      std::mt19937_64* reshuffler = nullptr);

}  // namespace dptrain
