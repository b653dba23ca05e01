// Uniform subsampling of mini-batches for BST14 (Bolt-on Algorithms 4-5; docs/pitfalls.md §P9).
//
// Privacy amplification by subsampling needs every batch to be a fresh,
// secret, uniformly random subset of the rows: consecutive slices of one
// shuffled table give no amplification. An epoch of BST14 is therefore
// ceil(m / b) batches, each of exactly b distinct row numbers drawn uniformly
// among all b-subsets of {1..m}, independently of the other batches (of this
// and every other epoch), i.e. sampling without replacement inside a batch
// and with replacement across batches. This is the sampling scheme of the
// amplification theorem the BST14 plan uses (Balle, Barthe & Gaboardi 2018,
// Theorem 10: fixed-size sampling without replacement under replace-one
// adjacency, q = b/m).
//
// The randomness is the run's secret key with the epoch's own nonce
// (RandomSource::from_key(key, sampling_nonce(u0)), batch_noise.h), so the
// server-side set-returning function that produces the batches
// (dptrain.sample_batches) and a test or audit running in the core produce
// the same batches for the same key.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/interrupt.h"
#include "core/privacy/random_source.h"
#include "core/privacy/uniform_subset.h"

namespace dptrain {

// ceil(rows / batch_size): the batches (= updates) of one epoch.
std::int64_t batches_per_epoch(std::int64_t rows, std::int64_t batch_size);

class BatchSampler {
 public:
  // The batches of the epoch that starts after `epoch_start_updates`
  // updates of the run keyed by `key`. Requires 1 <= batch_size <= rows.
  BatchSampler(const privacy::RandomSource::Key& key, std::uint64_t epoch_start_updates, std::int64_t rows,
               std::int64_t batch_size);

  // The next batch: batch_size distinct row numbers in [1, rows], ascending
  // (the order inside a batch is irrelevant: every row of a batch is
  // evaluated at the same model; ascending order helps the index lookups).
  void next(std::int64_t* out);

  // Polled during a large batch's draw (UniformSubset::draw): true = stop with 57014.
  void set_interrupt_check(InterruptCheck check) { interrupted_ = std::move(check); }

 private:
  privacy::RandomSource stream_;
  std::int64_t rows_;
  std::int64_t batch_size_;
  std::vector<std::int64_t> chosen_;
  privacy::UniformSubset subset_;
  InterruptCheck interrupted_;
};

}  // namespace dptrain
