// The Rao-Sandelius shuffle of the training copy (src/core/sgd/bucket_shuffle.h):
// every row exactly once for many n and B (B > n, empty buckets included),
// exact uniformity over all 4! and 5! orders for several B (chi-square with
// fixed seeds), and the same test rejecting two broken variants, so that it
// can fail.
#include "core/sgd/bucket_shuffle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <functional>
#include <map>
#include <numeric>
#include <vector>

#include "core/error.h"

namespace dptrain::sgd {
namespace {

using privacy::RandomSource;

TEST(BucketShuffle, BucketCountFitsABucketInItsBudget) {
  // 1M rows of 512 bytes in 4 MiB buckets: 512e6 / 4194304 = 122.07 -> 123
  EXPECT_EQ(bucket_count(1000000, 512, 4u << 20), 123u);
  EXPECT_EQ(bucket_count(8192, 512, 4u << 20), 1u);   // exactly one bucket's worth
  EXPECT_EQ(bucket_count(8193, 512, 4u << 20), 2u);   // one byte more
  EXPECT_EQ(bucket_count(0, 512, 1024), 1u);          // an empty table: still one bucket
  EXPECT_EQ(bucket_count(1, 0, 1024), 1u);
  // 100M rows of 1 kB in 64 kB buckets would need 1.5M buckets: capped
  EXPECT_EQ(bucket_count(100000000, 1024, 65536), kMaxShuffleBuckets);
  EXPECT_EQ(bucket_count(UINT64_MAX, UINT64_MAX, 1), kMaxShuffleBuckets);  // no overflow
  EXPECT_THROW(bucket_count(10, 10, 0), Error);
}

TEST(BucketShuffle, EveryRowExactlyOnce) {
  auto rng = RandomSource::seeded(11);
  for (std::uint64_t n : {0u, 1u, 2u, 3u, 10u, 97u, 1000u, 4096u})
    for (std::uint64_t b : {1u, 2u, 3u, 16u, 1000u, 5000u}) {  // B > n leaves buckets empty
      std::vector<std::uint64_t> order = bucket_shuffle(rng, n, b);
      ASSERT_EQ(order.size(), n) << "n=" << n << " B=" << b;
      std::sort(order.begin(), order.end());
      for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(order[i], i) << "n=" << n << " B=" << b;
    }
  EXPECT_THROW(bucket_shuffle(rng, 3, 0), Error);
}

TEST(BucketShuffle, BucketsAreUniform) {
  // 120000 rows into 12 buckets: each count ~ Binomial(120000, 1/12), sd 95.7;
  // chi-square (11 degrees of freedom) below its 0.9999 quantile.
  auto rng = RandomSource::seeded(5);
  std::vector<double> counts(12, 0);
  for (int i = 0; i < 120000; ++i) counts[bucket_of(rng, 12)] += 1;
  double chi2 = 0;
  for (double c : counts) chi2 += (c - 10000) * (c - 10000) / 10000;
  EXPECT_LT(chi2, boost::math::quantile(boost::math::chi_squared(11), 0.9999));
  EXPECT_EQ(bucket_of(rng, 1), 0u);
}

// Pearson's chi-square of the orders of n rows over `draws` shuffles against
// the uniform law on all n! orders (an order never seen counts as 0).
double order_chi2(int n, int draws, const std::function<std::vector<std::uint64_t>()>& shuffle) {
  std::map<std::vector<std::uint64_t>, int> counts;
  for (int t = 0; t < draws; ++t) ++counts[shuffle()];
  double perms = 1;
  for (int k = 2; k <= n; ++k) perms *= k;
  const double expected = draws / perms;
  double chi2 = 0, seen = 0;
  for (const auto& [order, c] : counts) {
    chi2 += (c - expected) * (c - expected) / expected;
    seen += 1;
  }
  return chi2 + (perms - seen) * expected;  // each unseen order contributes (0 - e)^2 / e
}

// Upper 1e-4 tail of chi-square with n! - 1 degrees of freedom: a uniform
// shuffle passes each of the 8 cases below with probability 0.9999 (the seeds
// are fixed, so the test is deterministic; a broken shuffle fails by far).
double threshold(int n) {
  double perms = 1;
  for (int k = 2; k <= n; ++k) perms *= k;
  return boost::math::quantile(boost::math::chi_squared(perms - 1), 0.9999);
}

TEST(BucketShuffle, AllOrdersOfFourAndFiveRowsAreEquallyLikely) {
  for (int n : {4, 5})
    for (std::uint64_t b : {1u, 2u, 3u, 7u}) {  // B = 7 > n: empty buckets every time
      auto rng = RandomSource::seeded(100 + n, b);
      const int draws = n == 4 ? 24000 : 60000;  // 1000 and 500 expected per order
      const double chi2 = order_chi2(n, draws, [&] { return bucket_shuffle(rng, n, b); });
      EXPECT_LT(chi2, threshold(n)) << "n=" << n << " B=" << b;
    }
}

TEST(BucketShuffle, TheChiSquareCatchesBrokenShuffles) {
  // Buckets without the permutation inside them: rows of one bucket keep
  // their order (the identity is 1/2^4 + ... far likelier than 1/24).
  auto rng = RandomSource::seeded(3);
  const double no_permute = order_chi2(4, 24000, [&] {
    std::vector<std::vector<std::uint64_t>> bucket(2);
    for (std::uint64_t row = 0; row < 4; ++row) bucket[bucket_of(rng, 2)].push_back(row);
    std::vector<std::uint64_t> order = bucket[0];
    order.insert(order.end(), bucket[1].begin(), bucket[1].end());
    return order;
  });
  EXPECT_GT(no_permute, 10 * threshold(4));
  // The classic off-by-one of Fisher-Yates (j on [0, i) : Sattolo's cycles,
  // only (n-1)! = 6 of the 24 orders ever come out).
  const double sattolo = order_chi2(4, 24000, [&] {
    std::vector<std::uint64_t> order = {0, 1, 2, 3};
    for (std::size_t i = 4; i > 1; --i) std::swap(order[i - 1], order[rng.uniform_below(i - 1)]);
    return order;
  });
  EXPECT_GT(sattolo, 10 * threshold(4));
}

TEST(BucketShuffle, SecureShufflesDiffer) {
  // Two runs with OS keys: 1000 rows in the same order has probability 1/1000!.
  auto a = RandomSource::secure();
  auto b = RandomSource::secure();
  EXPECT_NE(bucket_shuffle(a, 1000, 4), bucket_shuffle(b, 1000, 4));
}

}  // namespace
}  // namespace dptrain::sgd
