// Statistical tests of DP-SGD's lot sampling: the exact Binomial sampler
// (privacy/samplers.h) and the Poisson lots built from it (dpsgd/poisson_lots.h).
// Chi-square goodness of fit against Boost.Math's binomial pmf (cells with expected
// count < 20 pooled), z-scores of moments, and independence of rows, all with fixed keys
// (statistics.h explains why p > 1e-3 and |z| < 5 are sound thresholds).
#include <gtest/gtest.h>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "core/dpsgd/poisson_lots.h"
#include "core/error.h"
#include "core/privacy/batch_noise.h"
#include "core/privacy/samplers.h"
#include "statistics.h"

namespace dptrain {
namespace {

using test::fixed_key;
using test::mean_z;
using test::report;
using test::variance_z;

constexpr double kMinP = 1e-3;
constexpr double kMaxZ = 5.0;

// Pearson's chi-square of observed counts (value -> count, N draws) against Binomial(n, p),
// cells pooled from both tails inwards until each expected count is >= 20. Returns the p-value.
double binomial_chi_square_p(const std::map<std::int64_t, double>& observed, double draws, std::int64_t n, double p) {
  const boost::math::binomial_distribution<double> dist(static_cast<double>(n), p);
  const double mean = n * p, sd = std::sqrt(n * p * (1 - p));
  std::int64_t lo = std::max<std::int64_t>(0, static_cast<std::int64_t>(mean - 12 * sd - 2));
  std::int64_t hi = std::min<std::int64_t>(n, static_cast<std::int64_t>(mean + 12 * sd + 2));
  // Cells [lo..k] (left tail), single values, [k..hi] (right tail); every observation outside
  // [lo, hi] is so improbable that it fails the test by itself.
  for (const auto& [value, count] : observed)
    if (value < lo || value > hi) return 0.0;
  auto expected_cell = [&](std::int64_t a, std::int64_t b) {  // P(a <= X <= b) * draws
    const double below = a > 0 ? boost::math::cdf(dist, static_cast<double>(a - 1)) : 0.0;
    return (boost::math::cdf(dist, static_cast<double>(b)) - below) * draws;
  };
  auto observed_cell = [&](std::int64_t a, std::int64_t b) {
    double c = 0;
    for (auto it = observed.lower_bound(a); it != observed.end() && it->first <= b; ++it) c += it->second;
    return c;
  };
  std::int64_t left = lo;  // the left tail cell is [0, left]
  while (expected_cell(0, left) < 20 && left < hi) ++left;
  std::int64_t right = hi;  // the right tail cell is [right, n]
  while (expected_cell(right, n) < 20 && right > left + 1) --right;
  double chi2 = 0;
  int cells = 0;
  auto add = [&](std::int64_t a, std::int64_t b) {
    const double e = expected_cell(a, b), o = observed_cell(a, b);
    chi2 += (o - e) * (o - e) / e;
    ++cells;
  };
  add(0, left);
  std::int64_t a = left + 1;
  while (a < right) {  // interior cells of expected count >= 20 (merging neighbours if needed)
    std::int64_t b = a;
    while (expected_cell(a, b) < 20 && b + 1 < right) ++b;
    add(a, b);
    a = b + 1;
  }
  if (right > left) add(right, n);
  if (cells < 2) return 1.0;
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared_distribution<double>(cells - 1), chi2));
}

struct BinomialCase {
  std::int64_t n;
  double p;
};

class BinomialCases : public ::testing::TestWithParam<BinomialCase> {};

TEST_P(BinomialCases, MatchesThePmfAndMoments) {
  const BinomialCase c = GetParam();
  privacy::RandomSource rng = privacy::RandomSource::seeded(1000 + static_cast<std::uint64_t>(c.n), 7);
  const privacy::BinomialSampler sampler(c.n, c.p);
  const int draws = 200000;
  std::map<std::int64_t, double> counts;
  std::vector<double> values(draws);
  for (int i = 0; i < draws; ++i) {
    const std::int64_t k = sampler(rng);
    ASSERT_GE(k, 0);
    ASSERT_LE(k, c.n);
    counts[k] += 1;
    values[i] = static_cast<double>(k);
  }
  const double p_value = binomial_chi_square_p(counts, draws, c.n, c.p);
  report("Binomial(" + std::to_string(c.n) + ", " + std::to_string(c.p) + ") chi-square", p_value);
  EXPECT_GT(p_value, kMinP);
  const double mean = c.n * c.p, var = c.n * c.p * (1 - c.p);
  if (var > 0) {
    EXPECT_LT(std::abs(mean_z(values, mean, std::sqrt(var))), kMaxZ);
    // 4th central moment of a binomial: n p q (1 + 3 (n - 2) p q).
    const double pq = c.p * (1 - c.p);
    const double mu4 = c.n * pq * (1 + 3 * (c.n - 2) * pq);
    EXPECT_LT(std::abs(variance_z(values, var, mu4)), kMaxZ);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, BinomialCases,
                         ::testing::Values(BinomialCase{1, 0.3}, BinomialCase{10, 0.3}, BinomialCase{100, 1e-3},
                                           BinomialCase{1000, 0.5}, BinomialCase{1000, 0.93},
                                           BinomialCase{30162, 250.0 / 30162}, BinomialCase{1000000, 1e-4},
                                           BinomialCase{100000000, 0.01}));

TEST(Binomial, DetectsAnOffByOneRate) {
  // Power: 200000 draws of Binomial(30162, 251/30162) are rejected as Binomial(30162, 250/30162).
  privacy::RandomSource rng = privacy::RandomSource::seeded(77);
  const privacy::BinomialSampler wrong(30162, 251.0 / 30162);
  std::map<std::int64_t, double> counts;
  for (int i = 0; i < 200000; ++i) counts[wrong(rng)] += 1;
  EXPECT_LT(binomial_chi_square_p(counts, 200000, 30162, 250.0 / 30162), kMinP);
}

TEST(Binomial, DegenerateCasesAndBadInput) {
  privacy::RandomSource rng = privacy::RandomSource::seeded(3);
  EXPECT_EQ(privacy::BinomialSampler(0, 0.5)(rng), 0);
  EXPECT_EQ(privacy::BinomialSampler(50, 0.0)(rng), 0);
  EXPECT_EQ(privacy::BinomialSampler(50, 1.0)(rng), 50);
  EXPECT_THROW(privacy::BinomialSampler(-1, 0.5), Error);
  EXPECT_THROW(privacy::BinomialSampler(10, 1.5), Error);
  EXPECT_THROW(privacy::BinomialSampler(10, NAN), Error);
}

TEST(PoissonLots, SizesAreBinomialAndRowsIndependentAndUniform) {
  // n = 1000 rows, q = 0.05, 40000 lots. (1) |lot t| ~ Binomial(n, q). (2) Every row is in a
  // lot with probability q, independently of every other row: the per-row counts c_i ~
  // Binomial(T, q) are independent, so sum_i (c_i - Tq)^2 / (Tq(1-q)) ~ chi^2_n (approx.).
  // (3) Two rows are together with probability q^2 (independence), e.g. rows (1, 2), (1, n).
  const std::int64_t n = 1000;
  const double q = 0.05;
  const int lots_count = 40000;
  dpsgd::PoissonLots lots(fixed_key(11), n, q);
  std::map<std::int64_t, double> sizes;
  std::vector<double> inclusion(static_cast<std::size_t>(n) + 1, 0.0);
  double together_12 = 0, together_1n = 0;
  for (int t = 1; t <= lots_count; ++t) {
    const std::vector<std::int64_t>& lot = lots.lot(static_cast<std::uint64_t>(t));
    ASSERT_TRUE(std::is_sorted(lot.begin(), lot.end()));
    ASSERT_EQ(std::adjacent_find(lot.begin(), lot.end()), lot.end());
    sizes[static_cast<std::int64_t>(lot.size())] += 1;
    for (std::int64_t r : lot) {
      ASSERT_GE(r, 1);
      ASSERT_LE(r, n);
      inclusion[static_cast<std::size_t>(r)] += 1;
    }
    const bool has1 = std::binary_search(lot.begin(), lot.end(), 1);
    together_12 += has1 && std::binary_search(lot.begin(), lot.end(), 2);
    together_1n += has1 && std::binary_search(lot.begin(), lot.end(), n);
  }
  const double p_sizes = binomial_chi_square_p(sizes, lots_count, n, q);
  report("Poisson lot sizes ~ Binomial(1000, 0.05), chi-square", p_sizes);
  EXPECT_GT(p_sizes, kMinP);

  const double e = lots_count * q, v = lots_count * q * (1 - q);
  double chi2 = 0;
  for (std::int64_t r = 1; r <= n; ++r) chi2 += (inclusion[r] - e) * (inclusion[r] - e) / v;
  const double p_rows = 2 * std::min(boost::math::cdf(boost::math::chi_squared_distribution<double>(n), chi2),
                                     boost::math::cdf(boost::math::complement(
                                         boost::math::chi_squared_distribution<double>(n), chi2)));
  report("Poisson lots: per-row inclusion uniform, chi-square (two-sided)", p_rows);
  EXPECT_GT(p_rows, kMinP);

  const double e2 = lots_count * q * q, sd2 = std::sqrt(lots_count * q * q * (1 - q * q));
  EXPECT_LT(std::abs(together_12 - e2) / sd2, kMaxZ) << together_12;
  EXPECT_LT(std::abs(together_1n - e2) / sd2, kMaxZ) << together_1n;
}

TEST(PoissonLots, RegeneratedFromKeyAndLotNumberInAnyOrder) {
  dpsgd::PoissonLots a(fixed_key(12), 5000, 0.01), b(fixed_key(12), 5000, 0.01), other(fixed_key(13), 5000, 0.01);
  std::vector<std::vector<std::int64_t>> forward;
  for (std::uint64_t t = 1; t <= 50; ++t) forward.push_back(a.lot(t));
  for (std::uint64_t t = 50; t >= 1; --t) EXPECT_EQ(b.lot(t), forward[t - 1]) << t;  // any order
  EXPECT_NE(forward[0], forward[1]);
  EXPECT_NE(other.lot(1), forward[0]);
  // Lot t reads the stream (key, 2^62 + t): not the noise stream of lot t (nonce t).
  privacy::RandomSource lot_stream = privacy::RandomSource::from_key(fixed_key(12), privacy::lot_nonce(1));
  privacy::RandomSource noise_stream = privacy::RandomSource::from_key(fixed_key(12), privacy::noise_nonce(1));
  EXPECT_NE(lot_stream.next_u64(), noise_stream.next_u64());
}

TEST(PoissonLots, EdgeCases) {
  dpsgd::PoissonLots all(fixed_key(14), 37, 1.0);
  const auto& lot = all.lot(3);
  ASSERT_EQ(lot.size(), 37u);
  for (std::size_t i = 0; i < lot.size(); ++i) EXPECT_EQ(lot[i], static_cast<std::int64_t>(i + 1));
  dpsgd::PoissonLots none(fixed_key(14), 0, 0.5);
  EXPECT_TRUE(none.lot(1).empty());
  EXPECT_THROW(dpsgd::PoissonLots(fixed_key(14), 10, 0.0), Error);
  EXPECT_THROW(dpsgd::PoissonLots(fixed_key(14), 10, 1.5), Error);
  dpsgd::PoissonLots some(fixed_key(14), 10, 0.5);
  EXPECT_THROW(some.lot(0), Error);
  EXPECT_THROW(some.lot(privacy::kLotNonceBit), Error);
}

}  // namespace
}  // namespace dptrain
