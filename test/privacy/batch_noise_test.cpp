// The per-batch noise entry point of the epoch aggregate (src/core/privacy/
// batch_noise.h), through the per-update streams exactly as the aggregate
// draws them: L2-Laplace norms and directions, Gaussian scale, independence
// of the streams of consecutive updates, the nonces of a run. (The samplers
// themselves, ziggurat and Gamma included, are tested in samplers_test.cpp.)
// Fixed keys, KS thresholds as in statistics.h.
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/privacy/batch_noise.h"
#include "core/privacy/samplers.h"
#include "statistics.h"

namespace dptrain::privacy {
namespace {

using test::ks_test;
using test::report;
using test::fixed_key;

constexpr double kMinP = 1e-3;
constexpr double kMaxZ = 5.0;

TEST(BatchNoise, L2LaplaceNormIsGammaAndDirectionIsUniform) {
  // d = 54 (Forest Covertype), scale 3: ||Z|| ~ Gamma(54, 3); the first
  // coordinate of Z / ||Z|| is (2 Beta(26.5, 26.5) - 1) for a uniform direction.
  const std::size_t d = 54;
  std::vector<double> norms, first;
  for (std::uint64_t t = 1; t <= 60000; ++t) {
    std::vector<double> z(d, 0.0);
    add_batch_noise(BatchNoiseKind::L2Laplace, 3.0, fixed_key(5), t, z.data(), d);
    double sq = 0;
    for (double v : z) sq += v * v;
    norms.push_back(std::sqrt(sq));
    first.push_back(z[0] / std::sqrt(sq));
  }
  boost::math::gamma_distribution<> radius(54.0, 3.0);
  EXPECT_GT(report("L2-Laplace norm vs Gamma(54, 3)", ks_test(norms, [&](double x) { return cdf(radius, x); })),
            kMinP);
  boost::math::beta_distribution<> coord(26.5, 26.5);
  EXPECT_GT(report("L2-Laplace direction, first coordinate",
                   ks_test(first, [&](double x) { return cdf(coord, (x + 1) / 2); })),
            kMinP);
  // Power: scale 3.06 (2% more noise) is rejected.
  boost::math::gamma_distribution<> wrong(54.0, 3.06);
  EXPECT_LT(ks_test(norms, [&](double x) { return cdf(wrong, x); }), 1e-6);
}

TEST(BatchNoise, GaussianScaleAndFreshStreamsPerUpdate) {
  // add_batch_noise(Gaussian, sigma = 2.5) over consecutive update indices:
  // every coordinate N(0, 6.25), and the draws of update t and t+1 uncorrelated.
  const std::size_t d = 10;
  std::vector<double> all, a, b;
  std::vector<double> prev(d, 0.0);
  for (std::uint64_t t = 1; t <= 20000; ++t) {
    std::vector<double> z(d, 0.0);
    add_batch_noise(BatchNoiseKind::Gaussian, 2.5, fixed_key(6), t, z.data(), d);
    all.insert(all.end(), z.begin(), z.end());
    if (t > 1) {
      a.push_back(prev[0]);
      b.push_back(z[0]);
    }
    prev = z;
  }
  boost::math::normal_distribution<> dist(0, 2.5);
  EXPECT_GT(report("batch Gaussian noise vs N(0, 2.5^2)", ks_test(all, [&](double x) { return cdf(dist, x); })),
            kMinP);
  // Correlation of the first coordinates of consecutive updates: ~N(0, 1/n).
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += a[i] * b[i];
    saa += a[i] * a[i];
    sbb += b[i] * b[i];
  }
  const double corr = sab / std::sqrt(saa * sbb);
  EXPECT_LT(std::abs(corr) * std::sqrt(static_cast<double>(a.size())), kMaxZ) << corr;
  // The same (key, t) gives the same noise; another t another.
  std::vector<double> x(d, 0.0), y(d, 0.0), w(d, 0.0);
  add_batch_noise(BatchNoiseKind::Gaussian, 1.0, fixed_key(7), 5, x.data(), d);
  add_batch_noise(BatchNoiseKind::Gaussian, 1.0, fixed_key(7), 5, y.data(), d);
  add_batch_noise(BatchNoiseKind::Gaussian, 1.0, fixed_key(7), 6, w.data(), d);
  EXPECT_EQ(x, y);
  EXPECT_NE(x, w);
}

TEST(BatchNoise, NoncesOfARunNeverOverlap) {
  // Noise of update t: nonce t, 1 <= t < 2^63; sampling of the epoch that
  // starts after u0 updates: nonce 2^63 + u0.
  const std::uint64_t top = std::uint64_t{1} << 63;
  EXPECT_EQ(noise_nonce(1), 1u);
  EXPECT_EQ(noise_nonce(top - 1), top - 1);
  EXPECT_THROW(noise_nonce(0), Error);
  EXPECT_THROW(noise_nonce(top), Error);
  EXPECT_EQ(sampling_nonce(0), top);
  EXPECT_EQ(sampling_nonce(1200), top + 1200);
  EXPECT_THROW(sampling_nonce(top), Error);
  std::vector<double> z(4, 0.0);
  EXPECT_THROW(add_batch_noise(BatchNoiseKind::Gaussian, 1.0, fixed_key(8), 0, z.data(), z.size()), Error);
  EXPECT_THROW(add_batch_noise(BatchNoiseKind::L2Laplace, 1.0, fixed_key(8), top, z.data(), z.size()), Error);
  // No noise: nothing drawn, nothing added.
  add_batch_noise(BatchNoiseKind::None, 0.0, fixed_key(8), 1, z.data(), z.size());
  EXPECT_EQ(z, std::vector<double>(4, 0.0));
  // The noise of update t is the Gaussian of stream (key, t).
  add_batch_noise(BatchNoiseKind::Gaussian, 1.5, fixed_key(8), 42, z.data(), z.size());
  auto rng = RandomSource::from_key(fixed_key(8), 42);
  std::vector<double> expected(4, 0.0);
  add_gaussian_noise(rng, expected.data(), expected.size(), 1.5);
  EXPECT_EQ(z, expected);
}

}  // namespace
}  // namespace dptrain::privacy
