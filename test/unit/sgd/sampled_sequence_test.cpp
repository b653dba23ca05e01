// The chunked sequence of a BST14 epoch (src/core/sgd/sampled_sequence.h):
// whatever the chunk size, the chunks concatenate to exactly the batches of
// BatchSampler for the same key and nonce, in order, each entry tagged with
// its batch -- the sampled multiset of every batch is what the server fetches.
#include "core/sgd/sampled_sequence.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"

namespace dptrain {
namespace {

privacy::RandomSource::Key key(unsigned char v) {
  privacy::RandomSource::Key k{};
  k.fill(v);
  return k;
}

struct Entry {
  std::int64_t row, batch;
  bool operator==(const Entry& o) const { return row == o.row && batch == o.batch; }
};

std::vector<Entry> from_sampler(std::uint64_t start, std::int64_t m, std::int64_t b) {
  BatchSampler s(key(9), start, m, b);
  std::vector<std::int64_t> batch(static_cast<std::size_t>(b));
  std::vector<Entry> out;
  for (std::int64_t j = 1; j <= batches_per_epoch(m, b); ++j) {
    s.next(batch.data());
    for (std::int64_t r : batch) out.push_back({r, j});
  }
  return out;
}

std::vector<Entry> from_chunks(std::uint64_t start, std::int64_t m, std::int64_t b, std::size_t capacity) {
  SampledSequence seq(key(9), start, m, b);
  std::vector<std::int64_t> rows(capacity), batches(capacity);
  std::vector<Entry> out;
  for (;;) {
    const std::size_t n = seq.next_chunk(rows.data(), batches.data(), capacity);
    EXPECT_LE(n, capacity);
    if (n == 0) break;
    for (std::size_t k = 0; k < n; ++k) out.push_back({rows[k], batches[k]});
  }
  EXPECT_EQ(seq.next_chunk(rows.data(), batches.data(), capacity), 0u) << "the sequence must stay ended";
  return out;
}

TEST(SampledSequence, ChunksConcatenateToTheSampledBatches) {
  for (auto [m, b] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {100, 1}, {100, 10}, {103, 10}, {57, 57},
                      {1000, 64}, {1000, 65}}) {
    const std::vector<Entry> want = from_sampler(42, m, b);
    ASSERT_EQ(static_cast<std::int64_t>(want.size()), batches_per_epoch(m, b) * b);
    for (std::size_t cap : {std::size_t{1}, std::size_t{3}, static_cast<std::size_t>(b), static_cast<std::size_t>(b) + 1,
                            static_cast<std::size_t>(7 * b), std::size_t{100000}}) {
      EXPECT_EQ(from_chunks(42, m, b, cap), want) << "m = " << m << ", b = " << b << ", chunk = " << cap;
    }
  }
}

TEST(SampledSequence, TheEpochNonceSelectsTheStream) {
  // Another epoch (another update count) samples other batches; the same one the same.
  EXPECT_EQ(from_chunks(0, 200, 5, 17), from_chunks(0, 200, 5, 17));
  EXPECT_NE(from_chunks(0, 200, 5, 17), from_chunks(40, 200, 5, 17));
}

TEST(SampledSequence, RefusesBadArguments) {
  EXPECT_THROW(SampledSequence(key(1), 0, 10, 11), Error);
  EXPECT_THROW(SampledSequence(key(1), 0, 10, 0), Error);
  SampledSequence seq(key(1), 0, 10, 2);
  std::int64_t r[1], b[1];
  EXPECT_THROW(seq.next_chunk(r, b, 0), Error);
}

// The sequence forwards its interrupt check to its sampler (dptrain.sampled_epoch
// sets it): a cancel pending during a large batch's draw stops next_chunk.
TEST(SampledSequence, LargeBatchPollsTheCancel) {
  const std::int64_t b = 2 * privacy::UniformSubset::kPollEvery;
  SampledSequence seq(key(9), 0, b, b);
  int polls = 0;
  seq.set_interrupt_check([&] { ++polls; return true; });
  std::vector<std::int64_t> rows(4), batches(4);
  try {
    seq.next_chunk(rows.data(), batches.data(), rows.size());
    FAIL() << "a cancelled chunk returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "57014");
  }
  EXPECT_EQ(polls, 1);
}

}  // namespace
}  // namespace dptrain
