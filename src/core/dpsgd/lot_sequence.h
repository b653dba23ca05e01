// The rows of the DP-SGD lots first .. last as one sequence, handed out in
// chunks, so that the server can fetch a chunk's rows in physical order and
// still apply them in lot order (src/pg/lots_pass.cpp).
//
// The sequence is exactly what dptrain.lot_rows streams: lot first, then
// first + 1, ..., last (poisson_lots.h: each lot's row numbers, ascending),
// every entry tagged with its lot; empty lots contribute no entries (the
// lot state still ends them, with their noise: lot_state::add_row ends
// every earlier lot, lot_state::finish the rest). A chunk holds at most
// `capacity` consecutive entries and may end inside a lot, so its memory
// does not depend on q n. Only the order of the reads changes; the model
// sees the same lots in the same order (the lots' analysis is about which
// rows each lot holds: Abadi et al. 2016, docs/dpsgd.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dpsgd/poisson_lots.h"

namespace dptrain::dpsgd {

class LotSequence {
 public:
  // The lots first .. last (1 <= first, else Error(Internal); first > last
  // is an empty sequence) of PoissonLots(key, rows, q).
  LotSequence(const privacy::RandomSource::Key& key, std::int64_t rows, double q, std::uint64_t first,
              std::uint64_t last);

  // The next at most `capacity` (>= 1) entries: row numbers into `rows`,
  // their lots into `lots`. Returns how many; 0 at the end.
  std::size_t next_chunk(std::int64_t* rows, std::int64_t* lots, std::size_t capacity);

 private:
  PoissonLots lots_;
  const std::vector<std::int64_t>* lot_ = nullptr;  // the current lot (owned by lots_)
  std::size_t used_ = 0;                             // its entries already handed out
  std::uint64_t current_;                            // its number (first - 1 before the first)
  std::uint64_t last_;
};

}  // namespace dptrain::dpsgd
