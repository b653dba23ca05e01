#include "core/sgd/sampled_sequence.h"

#include <algorithm>

#include "core/error.h"

namespace dptrain {

SampledSequence::SampledSequence(const privacy::RandomSource::Key& key, std::uint64_t epoch_start_updates,
                                 std::int64_t rows, std::int64_t batch_size)
    : sampler_(key, epoch_start_updates, rows, batch_size),
      batch_(static_cast<std::size_t>(batch_size)),
      used_(static_cast<std::size_t>(batch_size)),  // the first call draws batch 1
      batches_(batches_per_epoch(rows, batch_size)) {}

std::size_t SampledSequence::next_chunk(std::int64_t* rows, std::int64_t* batches, std::size_t capacity) {
  if (capacity == 0) fail(ErrorKind::Internal, "a sampled chunk needs room for one row");
  std::size_t filled = 0;
  while (filled < capacity) {
    if (used_ == batch_.size()) {
      if (current_ == batches_) break;  // the epoch is complete
      sampler_.next(batch_.data());
      ++current_;
      used_ = 0;
    }
    const std::size_t take = std::min(capacity - filled, batch_.size() - used_);
    std::copy_n(batch_.begin() + static_cast<std::ptrdiff_t>(used_), take, rows + filled);
    std::fill_n(batches + filled, take, current_);
    used_ += take;
    filled += take;
  }
  return filled;
}

}  // namespace dptrain
