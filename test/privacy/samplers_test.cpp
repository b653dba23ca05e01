// Statistical tests of the noise samplers (src/core/privacy/samplers.h) and
// of the uniforms of RandomSource: Kolmogorov-Smirnov against Boost.Math
// CDFs and z-tests of moments, all with fixed seeds or keys (see
// statistics.h for why the thresholds are sound), plus tests that a nearby
// wrong distribution IS rejected. The ziggurat normal is tested as a whole
// and piece by piece (the strips' cores and wedges, the tail). Every KS
// p-value is printed so a run documents itself.
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/laplace.hpp>
#include <boost/math/distributions/normal.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"
#include "statistics.h"

namespace dptrain::privacy {
namespace {

using test::ks_test;
using test::report;
using test::fixed_key;
using test::mean_z;
using test::variance_z;

constexpr double kMinP = 1e-3;  // KS acceptance threshold (see statistics.h)
constexpr double kMaxZ = 5.0;   // moment z-score bound (two-sided 5.7e-7)
constexpr std::size_t kN = 200000;

template <typename Draw>
std::vector<double> draw(std::size_t n, Draw&& f) {
  std::vector<double> v(n);
  for (auto& x : v) x = f();
  return v;
}

// --- the KS harness itself has power --------------------------------------

TEST(KsHarness, AcceptsTheRightDistributionAndRejectsNearbyWrongOnes) {
  auto rng = RandomSource::seeded(101);
  std::vector<double> z(kN);
  fill_standard_normal(rng, z.data(), z.size());
  boost::math::normal_distribution<> right(0.0, 1.0), wider(0.0, 1.05), shifted(0.02, 1.0);
  EXPECT_GT(report("harness: N(0,1) sample vs N(0,1)", ks_test(z, [&](double x) { return cdf(right, x); })), kMinP);
  EXPECT_LT(report("harness: N(0,1) sample vs N(0,1.05^2)", ks_test(z, [&](double x) { return cdf(wider, x); })),
            1e-6);
  EXPECT_LT(report("harness: N(0,1) sample vs N(0.02,1)", ks_test(z, [&](double x) { return cdf(shifted, x); })),
            1e-3);
}

// --- univariate samplers ----------------------------------------------------

TEST(Samplers, StandardNormalMatchesCdfAndMoments) {
  auto rng = RandomSource::from_key(fixed_key(1), 1);
  const std::size_t n = 400000;
  const std::vector<double> z = draw(n, [&] { return standard_normal(rng); });
  boost::math::normal_distribution<> n01;
  EXPECT_GT(report("standard_normal vs N(0,1)", ks_test(z, [&](double x) { return cdf(n01, x); })), kMinP);
  EXPECT_LT(std::abs(mean_z(z, 0.0, 1.0)), kMaxZ);
  EXPECT_LT(std::abs(variance_z(z, 1.0, 3.0)), kMaxZ);  // mu4 = 3
  // E z^4 = 3 with Var(z^4) = E z^8 - 9 = 105 - 9 = 96.
  double m4 = 0.0;
  for (double x : z) m4 += x * x * x * x;
  m4 /= static_cast<double>(n);
  EXPECT_LT(std::abs(m4 - 3.0) / std::sqrt(96.0 / n), kMaxZ);
  // Power: a 2% error in the scale is visible.
  boost::math::normal_distribution<> wider(0, 1.02);
  EXPECT_LT(report("power: N(0,1) sample vs N(0,1.02^2)", ks_test(z, [&](double x) { return cdf(wider, x); })), 1e-6);
}

// --- the ziggurat, piece by piece ----------------------------------------------

TEST(Ziggurat, TablesCloseAtTheTop) { EXPECT_LT(ziggurat_closure_error(), 1e-9); }

TEST(Ziggurat, TailBeyondTheBaseStrip) {
  // |Z| > r = 3.6541528853610088 comes only from the tail sampler: its
  // frequency is erfc(r / sqrt 2) = 2.5816e-4 and, given |Z| > r, |Z| has
  // CDF (Phi(x) - Phi(r)) / (1 - Phi(r)).
  const double r = 3.6541528853610088;
  boost::math::normal_distribution<> n01;
  const double p_tail = 2 * cdf(complement(n01, r));
  auto rng = RandomSource::from_key(fixed_key(2), 1);
  const std::size_t n = 8000000;
  std::vector<double> tail;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::abs(standard_normal(rng));
    if (v > r) tail.push_back(v);
  }
  const double expected = n * p_tail;
  EXPECT_LT(std::abs(tail.size() - expected) / std::sqrt(expected), kMaxZ) << tail.size() << " vs " << expected;
  const double upper = cdf(complement(n01, r));
  EXPECT_GT(report("ziggurat tail |Z| > r, conditional",
                   ks_test(tail, [&](double x) { return 1 - cdf(complement(n01, x)) / upper; })),
            kMinP);
}

TEST(Ziggurat, WedgesOfEveryStrip) {
  // The body: the distribution of |Z| restricted to [0.5, 3.6] covers
  // strips whose wedge test runs; KS of the conditional distribution there.
  boost::math::normal_distribution<> n01;
  auto rng = RandomSource::from_key(fixed_key(3), 9);
  std::vector<double> mid;
  while (mid.size() < 200000) {
    const double v = std::abs(standard_normal(rng));
    if (v > 0.5 && v < 3.6) mid.push_back(v);
  }
  const double lo = cdf(n01, 0.5), hi = cdf(n01, 3.6);
  EXPECT_GT(report("ziggurat |Z| on [0.5, 3.6], conditional",
                   ks_test(mid, [&](double x) { return (cdf(n01, x) - lo) / (hi - lo); })),
            kMinP);
}

TEST(Samplers, BulkNormalFillsOddLengthsAndMatchesCdf) {
  auto rng = RandomSource::seeded(2);
  std::vector<double> z(kN + 1, std::nan(""));
  fill_standard_normal(rng, z.data(), z.size());
  for (double x : z) ASSERT_TRUE(std::isfinite(x));
  boost::math::normal_distribution<> n01;
  EXPECT_GT(report("fill_standard_normal (odd length) vs N(0,1)", ks_test(z, [&](double x) { return cdf(n01, x); })),
            kMinP);
  // Consecutive values are independent: lag-1 correlation ~ 0.
  double c = 0.0;
  for (std::size_t i = 0; i + 1 < z.size(); i += 2) c += z[i] * z[i + 1];
  c /= static_cast<double>(z.size() / 2);
  EXPECT_LT(std::abs(c) * std::sqrt(static_cast<double>(z.size() / 2)), kMaxZ);
}

TEST(Samplers, ExponentialMatchesCdfAndMean) {
  auto rng = RandomSource::seeded(3);
  const double scale = 0.5;
  const std::vector<double> v = draw(kN, [&] { return exponential(rng, scale); });
  for (double x : v) ASSERT_GT(x, 0.0);
  boost::math::exponential_distribution<> e(1.0 / scale);
  EXPECT_GT(report("exponential(0.5) vs Exp", ks_test(v, [&](double x) { return cdf(e, x); })), kMinP);
  EXPECT_LT(std::abs(mean_z(v, scale, scale)), kMaxZ);
  // mu4 of Exp(scale) = 9 scale^4.
  EXPECT_LT(std::abs(variance_z(v, scale * scale, 9 * std::pow(scale, 4))), kMaxZ);
}

TEST(Samplers, LaplaceMatchesCdfAndMoments) {
  auto rng = RandomSource::seeded(4);
  const double b = 2.0;
  const std::vector<double> v = draw(kN, [&] { return laplace(rng, b); });
  boost::math::laplace_distribution<> lap(0.0, b);
  EXPECT_GT(report("laplace(2) vs Laplace", ks_test(v, [&](double x) { return cdf(lap, x); })), kMinP);
  EXPECT_LT(std::abs(mean_z(v, 0.0, std::sqrt(2.0) * b)), kMaxZ);
  // Var = 2 b^2, mu4 = 24 b^4.
  EXPECT_LT(std::abs(variance_z(v, 2 * b * b, 24 * std::pow(b, 4))), kMaxZ);

  std::vector<double> bulk(kN);
  fill_laplace(rng, bulk.data(), bulk.size(), b);
  EXPECT_GT(report("fill_laplace(2) vs Laplace", ks_test(bulk, [&](double x) { return cdf(lap, x); })), kMinP);
}

class GammaShapes : public ::testing::TestWithParam<double> {};

TEST_P(GammaShapes, MatchesCdfAndMoments) {
  const double k = GetParam();
  const double theta = 1.7;
  auto rng = RandomSource::seeded(1000 + static_cast<std::uint64_t>(k * 10));
  const std::vector<double> v = draw(kN, [&] { return gamma(rng, k, theta); });
  for (double x : v) ASSERT_TRUE(x >= 0.0 && std::isfinite(x));
  boost::math::gamma_distribution<> g(k, theta);
  EXPECT_GT(report("gamma(shape " + std::to_string(k) + ", scale 1.7)", ks_test(v, [&](double x) { return cdf(g, x); })),
            kMinP);
  const double var = k * theta * theta;
  EXPECT_LT(std::abs(mean_z(v, k * theta, std::sqrt(var))), kMaxZ);
  // Central 4th moment of Gamma(k, theta): 3 k (k + 2) theta^4.
  EXPECT_LT(std::abs(variance_z(v, var, 3 * k * (k + 2) * std::pow(theta, 4))), kMaxZ);
}

// < 1 (the U^(1/a) boost), 1 (exponential), ordinary, and the large shapes
// the L2-Laplace norm uses (d = 50 after random projection, 54 Forest
// Covertype, 500, 784 MNIST).
INSTANTIATE_TEST_SUITE_P(Shapes, GammaShapes, ::testing::Values(0.1, 0.5, 1.0, 2.5, 50.0, 54.0, 500.0, 784.0));

TEST(Samplers, GammaKsDetectsAnOffByOneShape) {
  // The classic L2-Laplace bug draws the norm from Gamma(d - 1) or Gamma(d + 1):
  // the KS test must see it.
  auto rng = RandomSource::seeded(7);
  const std::vector<double> v = draw(kN, [&] { return gamma(rng, 49.0, 1.0); });
  boost::math::gamma_distribution<> g(50.0, 1.0);
  EXPECT_LT(report("power: gamma(49) sample vs Gamma(50)", ks_test(v, [&](double x) { return cdf(g, x); })), 1e-6);
}

TEST(Samplers, RejectInvalidParameters) {
  auto rng = RandomSource::seeded(8);
  EXPECT_THROW(exponential(rng, 0.0), Error);
  EXPECT_THROW(laplace(rng, -1.0), Error);
  EXPECT_THROW(gamma(rng, 0.0, 1.0), Error);
  EXPECT_THROW(gamma(rng, std::numeric_limits<double>::infinity(), 1.0), Error);
  EXPECT_THROW(gamma(rng, 1.0, std::nan("")), Error);
  std::vector<double> v(3), scratch(3);
  EXPECT_THROW(add_gaussian_noise(rng, v.data(), v.size(), 0.0), Error);
  EXPECT_THROW(add_l2_laplace_noise(rng, v.data(), v.size(), 0.0, scratch.data()), Error);
  EXPECT_THROW(add_l2_laplace_noise(rng, v.data(), v.size(), std::numeric_limits<double>::infinity(), scratch.data()),
               Error);
  EXPECT_THROW(add_l2_laplace_noise(rng, v.data(), 0, 1.0, scratch.data()), Error);
  EXPECT_THROW(uniform_direction(rng, v.data(), 0), Error);
}

TEST(Samplers, VectorNoiseIsAddedInPlace) {
  // add_*_noise(out) adds exactly the vector it would add to zeros: two
  // copies of one stream, one adding to zeros, the other to a base vector.
  const std::vector<double> base = {1.5, -2.0, 0.25, 1e-3, 7.0};
  for (int kind = 0; kind < 2; ++kind) {
    auto a = RandomSource::seeded(12), b = RandomSource::seeded(12);
    std::vector<double> noise(base.size(), 0.0), noisy = base, scratch(base.size());
    if (kind == 0) {
      add_gaussian_noise(a, noise.data(), noise.size(), 2.0);
      add_gaussian_noise(b, noisy.data(), noisy.size(), 2.0);
    } else {
      add_l2_laplace_noise(a, noise.data(), noise.size(), 2.0, scratch.data());
      add_l2_laplace_noise(b, noisy.data(), noisy.size(), 2.0, scratch.data());
    }
    for (std::size_t i = 0; i < base.size(); ++i) {
      EXPECT_NE(noise[i], 0.0);
      EXPECT_EQ(noisy[i], base[i] + noise[i]) << "kind " << kind << ", coordinate " << i;
    }
  }
}

// --- directions and vector noise ---------------------------------------------

// A fixed unit vector that is not a coordinate axis, from an independent stream.
std::vector<double> fixed_unit_vector(std::size_t d) {
  auto rng = RandomSource::seeded(424242);
  std::vector<double> e(d);
  uniform_direction(rng, e.data(), d);
  return e;
}

// For u uniform on the sphere S^{d-1} and a fixed unit e, t = <u, e> has
// density prop. to (1 - t^2)^{(d-3)/2} on [-1, 1], i.e. (t + 1)/2 ~
// Beta((d-1)/2, (d-1)/2) (d = 3: uniform, Archimedes; d = 2: arcsine).
double direction_ks(const std::vector<double>& inner, std::size_t d) {
  const double a = (static_cast<double>(d) - 1.0) / 2.0;
  boost::math::beta_distribution<> beta(a, a);
  return ks_test(inner, [&](double t) { return cdf(beta, std::clamp((t + 1.0) / 2.0, 0.0, 1.0)); });
}

class Dimensions : public ::testing::TestWithParam<int> {};

TEST_P(Dimensions, UniformDirectionIsOnTheSphereAndUniform) {
  const std::size_t d = static_cast<std::size_t>(GetParam());
  const std::size_t n = std::max<std::size_t>(20000, 1000000 / d);
  auto rng = RandomSource::seeded(2000 + d);
  const std::vector<double> e = fixed_unit_vector(d);
  std::vector<double> u(d), inner(n), coord0(n), sum(d, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    uniform_direction(rng, u.data(), d);
    double sq = 0.0, dot = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      sq += u[j] * u[j];
      dot += u[j] * e[j];
      sum[j] += u[j];
    }
    ASSERT_NEAR(sq, 1.0, 1e-12);  // the sphere, not the ball
    inner[i] = dot;
    coord0[i] = u[0];
  }
  if (d == 1) {
    // The 0-sphere is {-1, +1}: a fair sign.
    double plus = 0;
    for (double x : coord0) plus += x > 0;
    EXPECT_LT(std::abs(plus - n / 2.0) / std::sqrt(n / 4.0), kMaxZ);
  } else {
    EXPECT_GT(report("direction d=" + std::to_string(d) + ": <u, e> vs Beta", direction_ks(inner, d)), kMinP);
    EXPECT_GT(report("direction d=" + std::to_string(d) + ": u_0 vs Beta", direction_ks(coord0, d)), kMinP);
  }
  // Every coordinate has mean 0 and variance 1/d.
  for (std::size_t j = 0; j < d; ++j)
    EXPECT_LT(std::abs(sum[j] / n) / std::sqrt(1.0 / (d * static_cast<double>(n))), kMaxZ) << "coordinate " << j;
}

TEST_P(Dimensions, L2LaplaceNormIsGammaAndDirectionIsUniform) {
  const std::size_t d = static_cast<std::size_t>(GetParam());
  const std::size_t n = std::max<std::size_t>(20000, 1000000 / d);
  const double sensitivity = 0.3, epsilon = 0.7;
  auto rng = RandomSource::seeded(3000 + d);
  const std::vector<double> e = fixed_unit_vector(d);
  std::vector<double> v(d), scratch(d), norms(n), inner(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::fill(v.begin(), v.end(), 0.0);
    add_l2_laplace_noise(rng, v.data(), d, sensitivity / epsilon, scratch.data());
    double sq = 0.0, dot = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      sq += v[j] * v[j];
      dot += v[j] * e[j];
    }
    norms[i] = std::sqrt(sq);
    inner[i] = dot / norms[i];
  }
  boost::math::gamma_distribution<> g(static_cast<double>(d), sensitivity / epsilon);
  EXPECT_GT(report("L2-Laplace d=" + std::to_string(d) + ": ||v|| vs Gamma(d, Delta/eps)",
                   ks_test(norms, [&](double x) { return cdf(g, x); })),
            kMinP);
  // E||v|| = d Delta / eps.
  EXPECT_LT(std::abs(mean_z(norms, d * sensitivity / epsilon, std::sqrt(static_cast<double>(d)) * sensitivity / epsilon)),
            kMaxZ);
  // Power: 2% more noise is rejected.
  boost::math::gamma_distribution<> wrong(static_cast<double>(d), 1.02 * sensitivity / epsilon);
  EXPECT_LT(report("power: L2-Laplace d=" + std::to_string(d) + ": ||v|| vs Gamma(d, 1.02 Delta/eps)",
                   ks_test(norms, [&](double x) { return cdf(wrong, x); })),
            1e-6);
  if (d >= 2) {
    EXPECT_GT(report("L2-Laplace d=" + std::to_string(d) + ": direction vs Beta", direction_ks(inner, d)), kMinP);
  }
}

INSTANTIATE_TEST_SUITE_P(Dims, Dimensions, ::testing::Values(1, 2, 3, 10, 50, 784));

TEST(Samplers, L2LaplaceInOneDimensionIsLaplace) {
  // d = 1: density prop. to exp(-eps |v| / Delta) is Laplace(Delta/eps).
  auto rng = RandomSource::seeded(9);
  const double sensitivity = 0.3, epsilon = 0.7;
  std::vector<double> v(kN, 0.0);
  double scratch;
  for (auto& x : v) add_l2_laplace_noise(rng, &x, 1, sensitivity / epsilon, &scratch);
  boost::math::laplace_distribution<> lap(0.0, sensitivity / epsilon);
  EXPECT_GT(report("L2-Laplace d=1 vs Laplace(Delta/eps)", ks_test(v, [&](double x) { return cdf(lap, x); })), kMinP);
}

TEST(Samplers, GaussianNoiseHasIndependentCoordinatesOfTheRightScale) {
  auto rng = RandomSource::seeded(10);
  const std::size_t d = 7, n = kN / d;
  const double sigma = 2.5;
  std::vector<double> v(d), pooled, c0, c1;
  for (std::size_t i = 0; i < n; ++i) {
    std::fill(v.begin(), v.end(), 0.0);
    add_gaussian_noise(rng, v.data(), d, sigma);
    pooled.insert(pooled.end(), v.begin(), v.end());
    c0.push_back(v[0]);
    c1.push_back(v[1]);
  }
  boost::math::normal_distribution<> g(0.0, sigma);
  EXPECT_GT(report("gaussian_noise(sigma 2.5), all coordinates", ks_test(pooled, [&](double x) { return cdf(g, x); })),
            kMinP);
  EXPECT_LT(std::abs(variance_z(pooled, sigma * sigma, 3 * std::pow(sigma, 4))), kMaxZ);
  double c = 0.0;
  for (std::size_t i = 0; i < n; ++i) c += c0[i] * c1[i] / (sigma * sigma);
  EXPECT_LT(std::abs(c / n) * std::sqrt(static_cast<double>(n)), kMaxZ);
}

// --- the uniforms of the random source ------------------------------------------------

TEST(RandomSourceStreams, UniformsAreUniformAndStrictlyInsideTheirRange) {
  auto rng = RandomSource::seeded(11);
  std::vector<double> u(kN);
  for (auto& x : u) {
    x = rng.uniform_open01();
    ASSERT_GT(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
  EXPECT_GT(report("uniform_open01 vs U(0,1)", ks_test(u, [](double x) { return x; })), kMinP);

  // uniform_below(7): in range, and a chi-square test of the 7 counts (6
  // degrees of freedom) at p > 1e-3; a modulo bias of 2^64 mod 7 would be
  // invisible here, the rejection removes it by construction.
  const int draws = 70000;
  std::vector<double> count(7, 0.0);
  for (int i = 0; i < draws; ++i) {
    const std::uint64_t v = rng.uniform_below(7);
    ASSERT_LT(v, 7u);
    count[v] += 1;
  }
  double chi2 = 0.0;
  for (double c : count) chi2 += (c - draws / 7.0) * (c - draws / 7.0) / (draws / 7.0);
  boost::math::chi_squared_distribution<> dist(6);
  EXPECT_GT(report("uniform_below(7), chi-square of the counts", cdf(complement(dist, chi2))), kMinP);
}

}  // namespace
}  // namespace dptrain::privacy
