// BST14's batch sampling (src/core/sgd/batch_sampler.h): distinct rows, in
// range, uniform inclusion, independent epochs, reproducible from the key.
#include "core/sgd/batch_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "core/error.h"
#include "core/privacy/batch_noise.h"

namespace dptrain {
namespace {

privacy::RandomSource::Key key(unsigned char v) {
  privacy::RandomSource::Key k{};
  k.fill(v);
  return k;
}

TEST(BatchSampler, BatchesPerEpochIsCeil) {
  EXPECT_EQ(batches_per_epoch(60000, 50), 1200);
  EXPECT_EQ(batches_per_epoch(1001, 10), 101);
  EXPECT_EQ(batches_per_epoch(7, 7), 1);
}

TEST(BatchSampler, DistinctSortedRowsInRange) {
  for (std::int64_t b : {1, 5, 64, 65, 300, 1000}) {
    BatchSampler s(key(1), 0, 1000, b);
    std::vector<std::int64_t> batch(static_cast<std::size_t>(b));
    for (int j = 0; j < 20; ++j) {
      s.next(batch.data());
      ASSERT_TRUE(std::is_sorted(batch.begin(), batch.end()));
      ASSERT_EQ(std::adjacent_find(batch.begin(), batch.end()), batch.end()) << "duplicate row, b = " << b;
      ASSERT_GE(batch.front(), 1);
      ASSERT_LE(batch.back(), 1000);
    }
  }
  // b = m: the whole table.
  BatchSampler all(key(2), 0, 50, 50);
  std::vector<std::int64_t> batch(50);
  all.next(batch.data());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(batch[i], i + 1);
}

TEST(BatchSampler, InclusionIsUniform) {
  // m = 40, b = 8 (linear lookup) and b = 100 of m = 500 (hash lookup):
  // every row is in a batch with probability q = b/m. Over N batches each
  // inclusion count c ~ Binomial(N, q); inside a batch two rows have
  // covariance -q(1-q)/(m-1), so X = sum (c - Nq)^2 / (Nq(1-q)) is
  // ~ m/(m-1) chi^2_{m-1}: mean m, sd about sqrt(2m). We allow 6 sd.
  for (auto [m, b] : {std::pair<std::int64_t, std::int64_t>{40, 8}, {500, 100}}) {
    const int N = 20000;
    std::vector<double> count(static_cast<std::size_t>(m) + 1, 0.0);
    BatchSampler s(key(3), 17, m, b);
    std::vector<std::int64_t> batch(static_cast<std::size_t>(b));
    for (int j = 0; j < N; ++j) {
      s.next(batch.data());
      for (auto r : batch) count[static_cast<std::size_t>(r)] += 1;
    }
    const double q = static_cast<double>(b) / m, e = N * q, v = N * q * (1 - q);
    double chi2 = 0;
    for (std::int64_t r = 1; r <= m; ++r) chi2 += (count[r] - e) * (count[r] - e) / v;
    EXPECT_LT(std::abs(chi2 - m), 6 * std::sqrt(2.0 * m)) << "m " << m << " b " << b << " chi2 " << chi2;
  }
}

TEST(BatchSampler, PairsAreUniformToo) {
  // Floyd's algorithm gives every b-subset the same probability; in
  // particular every pair of rows is together with probability
  // b(b-1) / (m(m-1)). m = 6, b = 3: 15 pairs, each with probability 0.2.
  const int N = 60000;
  BatchSampler s(key(4), 0, 6, 3);
  std::map<std::pair<std::int64_t, std::int64_t>, int> pairs;
  std::int64_t batch[3];
  for (int j = 0; j < N; ++j) {
    s.next(batch);
    pairs[{batch[0], batch[1]}]++;
    pairs[{batch[0], batch[2]}]++;
    pairs[{batch[1], batch[2]}]++;
  }
  ASSERT_EQ(pairs.size(), 15u);
  const double e = N * 0.2, sd = std::sqrt(N * 0.2 * 0.8);
  for (const auto& [pair, c] : pairs) EXPECT_LT(std::abs(c - e), 5 * sd) << pair.first << "," << pair.second;
}

TEST(BatchSampler, ReproducibleFromKeyAndEpochButFreshPerEpoch) {
  std::vector<std::int64_t> a(10), b(10), c(10), d(10);
  BatchSampler s1(key(5), 100, 1000, 10), s2(key(5), 100, 1000, 10), s3(key(5), 200, 1000, 10),
      s4(key(6), 100, 1000, 10);
  s1.next(a.data());
  s2.next(b.data());
  s3.next(c.data());
  s4.next(d.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);  // another epoch: another stream
  EXPECT_NE(a, d);  // another run: another key
}

TEST(BatchSampler, RejectsBadSizes) {
  EXPECT_THROW(BatchSampler(key(1), 0, 10, 0), Error);
  EXPECT_THROW(BatchSampler(key(1), 0, 10, 11), Error);
  EXPECT_THROW(BatchSampler(key(1), privacy::kSamplingNonceBit, 10, 2), Error);
}

// A large batch polls the cancel after every kPollEvery draws and while it is
// sorted (a crafted state with b = 1e9 drew for seconds without a check): the first true stops
// the draw with 57014; never true = the same batch as without the callback.
TEST(BatchSampler, LargeBatchPollsTheCancel) {
  constexpr std::int64_t kEvery = privacy::UniformSubset::kPollEvery;
  const std::int64_t m = 4 * kEvery, b = 3 * kEvery;
  std::vector<std::int64_t> quiet(static_cast<std::size_t>(b)), polled(quiet.size());
  BatchSampler plain(key(4), 0, m, b);
  plain.next(quiet.data());
  BatchSampler checked(key(4), 0, m, b);
  int polls = 0;
  checked.set_interrupt_check([&] { ++polls; return false; });
  checked.next(polled.data());
  EXPECT_EQ(polls, 3 + 3 + 2);  // 3 * kEvery draws, 3 sorted blocks, 2 merges
  ASSERT_TRUE(std::is_sorted(polled.begin(), polled.end()));
  EXPECT_EQ(quiet, polled);

  BatchSampler cancelled(key(4), 0, m, b);
  polls = 0;
  cancelled.set_interrupt_check([&] { return ++polls == 2; });
  try {
    cancelled.next(polled.data());
    FAIL() << "a cancelled draw returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "57014");
  }
  EXPECT_EQ(polls, 2);  // stopped at the first true

  BatchSampler small(key(4), 0, m, kEvery - 1);  // fewer draws than kEvery: no poll
  polls = 0;
  small.set_interrupt_check([&] { ++polls; return true; });
  small.next(polled.data());
  EXPECT_EQ(polls, 0);
}

}  // namespace
}  // namespace dptrain
