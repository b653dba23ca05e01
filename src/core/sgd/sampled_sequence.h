// The rows of one BST14 epoch as one sequence, handed out in chunks, so that
// the server can fetch a chunk's rows in physical order and still apply
// them in the sampled order (src/pg/sampled_epoch.cpp).
//
// The sequence is exactly what dptrain.sampled_rows streams: the
// ceil(m / b) batches of BatchSampler (batch_sampler.h) for the epoch's key
// and nonce, batch 1 first, each batch's b row numbers in the order the
// sampler returns them, every entry tagged with its batch number. A chunk
// holds at most `capacity` consecutive entries and may end inside a batch
// (the next chunk continues it), so the memory of a chunk does not depend
// on b or m. Only the order in which the server *reads* a chunk's rows
// changes; the model sees the same batches, in the same order, row by row:
// BST14's analysis (Bassily, Smith & Thakurta 2014, Algorithm 1; here
// docs/whitebox.md §4) is about which rows form each batch and that each
// update uses the model of the previous one, never about the order of
// the reads, and the resulting state is bit-identical to the streamed one
// (test/unit/sgd/sampled_sequence_test.cpp, the whitebox regress test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/interrupt.h"
#include "core/sgd/batch_sampler.h"

namespace dptrain {

class SampledSequence {
 public:
  // As BatchSampler (1 <= batch_size <= rows, else Error(InvalidParameter)).
  SampledSequence(const privacy::RandomSource::Key& key, std::uint64_t epoch_start_updates, std::int64_t rows,
                  std::int64_t batch_size);

  // The next at most `capacity` (>= 1) entries: row numbers in [1, rows]
  // into `rows`, their batch numbers into `batches`. Returns how many were
  // written; 0 once the epoch's ceil(m / b) * b entries have all been handed out.
  std::size_t next_chunk(std::int64_t* rows, std::int64_t* batches, std::size_t capacity);

  // As BatchSampler::set_interrupt_check.
  void set_interrupt_check(InterruptCheck check) { sampler_.set_interrupt_check(std::move(check)); }

 private:
  BatchSampler sampler_;
  std::vector<std::int64_t> batch_;  // the current batch
  std::size_t used_;                 // entries of batch_ already handed out
  std::int64_t current_ = 0;         // number of the current batch (0 before the first)
  std::int64_t batches_;             // ceil(m / b)
};

}  // namespace dptrain
