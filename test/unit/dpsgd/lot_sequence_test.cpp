// The chunked sequence of DP-SGD lots (src/core/dpsgd/lot_sequence.h): for
// every chunk size the chunks concatenate to exactly the lots of
// PoissonLots, in lot order, each entry tagged with its lot (empty lots
// included in the range, contributing nothing).
#include "core/dpsgd/lot_sequence.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "core/error.h"

namespace dptrain::dpsgd {
namespace {

privacy::RandomSource::Key key(unsigned char v) {
  privacy::RandomSource::Key k{};
  k.fill(v);
  return k;
}

using Entries = std::vector<std::pair<std::int64_t, std::int64_t>>;  // (row, lot)

Entries from_lots(std::int64_t n, double q, std::uint64_t first, std::uint64_t last) {
  PoissonLots lots(key(4), n, q);
  Entries out;
  for (std::uint64_t t = first; t <= last; ++t)
    for (std::int64_t r : lots.lot(t)) out.emplace_back(r, static_cast<std::int64_t>(t));
  return out;
}

Entries from_chunks(std::int64_t n, double q, std::uint64_t first, std::uint64_t last, std::size_t capacity) {
  LotSequence seq(key(4), n, q, first, last);
  std::vector<std::int64_t> rows(capacity), lots(capacity);
  Entries out;
  for (;;) {
    const std::size_t got = seq.next_chunk(rows.data(), lots.data(), capacity);
    EXPECT_LE(got, capacity);
    if (got == 0) break;
    for (std::size_t k = 0; k < got; ++k) out.emplace_back(rows[k], lots[k]);
  }
  EXPECT_EQ(seq.next_chunk(rows.data(), lots.data(), capacity), 0u);
  return out;
}

TEST(LotSequence, ChunksConcatenateToTheLots) {
  // q = 0.002 of 500 rows: most lots are empty; q = 0.3: lots of ~150 rows.
  for (double q : {0.002, 0.05, 0.3, 1.0}) {
    for (auto [first, last] : {std::pair<std::uint64_t, std::uint64_t>{1, 40}, {17, 23}, {5, 5}}) {
      const Entries want = from_lots(500, q, first, last);
      for (std::size_t cap : {std::size_t{1}, std::size_t{3}, std::size_t{64}, std::size_t{100000}})
        EXPECT_EQ(from_chunks(500, q, first, last, cap), want) << "q " << q << ", lots " << first << ".." << last
                                                               << ", chunk " << cap;
    }
  }
  EXPECT_FALSE(from_lots(500, 0.3, 1, 40).empty());  // the comparison above is not vacuous
}

TEST(LotSequence, AnEmptyRangeIsEmpty) {
  EXPECT_TRUE(from_chunks(100, 0.5, 8, 7, 10).empty());
}

TEST(LotSequence, RefusesLotZeroAndAnEmptyChunk) {
  EXPECT_THROW(LotSequence(key(1), 10, 0.5, 0, 3), Error);
  LotSequence seq(key(1), 10, 0.5, 1, 3);
  std::int64_t r[1], l[1];
  EXPECT_THROW(seq.next_chunk(r, l, 0), Error);
}

}  // namespace
}  // namespace dptrain::dpsgd
