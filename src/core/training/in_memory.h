// A training run over rows held in memory, driven exactly like the SQL glue
// drives the epoch aggregates (same Trainer, same states, same order of
// operations): permutation epochs for every algorithm but BST14, sampled
// batches from the run's key (the rows dptrain.sample_batches would return)
// for BST14. For tests, statistical checks of the noise, empirical privacy
// audits and accuracy comparisons without a database.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model.h"
#include "core/training/config.h"

namespace dptrain {

struct InMemoryData {
  std::vector<std::vector<double>> x;  // n rows of d features
  std::vector<double> y;               // class index: 0/1 (binary) or 0..K-1
};

// Trains on `data` with `config` (rows and dim are taken from the data; the
// classes must be set). The permutation of each epoch (and the reshuffles)
// comes from `shuffle_seed`; as in SQL, it is public and plays no role in
// the privacy of any algorithm here.
Model train_in_memory(TrainingConfig config, const InMemoryData& data, std::uint64_t shuffle_seed);

}  // namespace dptrain
