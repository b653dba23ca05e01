#include "core/dpsgd/lot_sequence.h"

#include <algorithm>

#include "core/error.h"

namespace dptrain::dpsgd {

LotSequence::LotSequence(const privacy::RandomSource::Key& key, std::int64_t rows, double q, std::uint64_t first,
                         std::uint64_t last)
    : lots_(key, rows, q), current_(first - 1), last_(last) {
  if (first < 1) fail(ErrorKind::Internal, "lots are numbered from 1");
}

std::size_t LotSequence::next_chunk(std::int64_t* rows, std::int64_t* lots, std::size_t capacity) {
  if (capacity == 0) fail(ErrorKind::Internal, "a lot chunk needs room for one row");
  std::size_t filled = 0;
  while (filled < capacity) {
    if (lot_ == nullptr || used_ == lot_->size()) {
      if (current_ >= last_) break;  // every lot handed out
      lot_ = &lots_.lot(++current_);
      used_ = 0;
      continue;  // an empty lot has nothing to hand out
    }
    const std::size_t take = std::min(capacity - filled, lot_->size() - used_);
    std::copy_n(lot_->begin() + static_cast<std::ptrdiff_t>(used_), take, rows + filled);
    std::fill_n(lots + filled, take, static_cast<std::int64_t>(current_));
    used_ += take;
    filled += take;
  }
  return filled;
}

}  // namespace dptrain::dpsgd
