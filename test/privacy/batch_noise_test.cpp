// Statistical tests of the per-batch noise samplers (src/core/privacy/
// batch_noise.h): the ziggurat normal (body, wedges and tail), the Gamma
// sampler, L2-Laplace norms and directions, Gaussian scale, independence of
// the streams of consecutive updates. Fixed keys, KS thresholds as in
// statistics.h.
#include <gtest/gtest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/privacy/batch_noise.h"
#include "core/privacy/keystream.h"
#include "statistics.h"

namespace dptrain::privacy {
namespace {

using test::ks_test;
using test::mean_z;
using test::variance_z;

constexpr double kMinP = 1e-3;
constexpr double kMaxZ = 5.0;

RandomSource::Key key(unsigned char v) {
  RandomSource::Key k{};
  for (int i = 0; i < 32; ++i) k[i] = static_cast<unsigned char>(v * 31 + i);
  return k;
}

double report(const std::string& what, double p) {
  std::printf("[ KS ] %-58s p = %.4g\n", what.c_str(), p);
  return p;
}

TEST(Ziggurat, TablesCloseAtTheTop) { EXPECT_LT(ziggurat_closure_error(), 1e-9); }

TEST(Ziggurat, StandardNormal) {
  Keystream ks(key(1), 1);
  std::vector<double> z(400000);
  for (auto& v : z) v = normal_ziggurat(ks);
  boost::math::normal_distribution<> n01;
  EXPECT_GT(report("ziggurat vs N(0,1)", ks_test(z, [&](double x) { return cdf(n01, x); })), kMinP);
  EXPECT_LT(std::abs(mean_z(z, 0, 1)), kMaxZ);
  EXPECT_LT(std::abs(variance_z(z, 1, 3)), kMaxZ);
  // Power: a 2% error in the scale is visible.
  boost::math::normal_distribution<> wider(0, 1.02);
  EXPECT_LT(ks_test(z, [&](double x) { return cdf(wider, x); }), 1e-6);
}

TEST(Ziggurat, TailBeyondTheBaseStrip) {
  // |Z| > r = 3.6541528853610088 comes only from the tail sampler: its
  // frequency is erfc(r / sqrt 2) = 2.5816e-4 and, given |Z| > r, |Z| has
  // CDF (Phi(x) - Phi(r)) / (1 - Phi(r)).
  const double r = 3.6541528853610088;
  boost::math::normal_distribution<> n01;
  const double p_tail = 2 * cdf(complement(n01, r));
  Keystream ks(key(2), 1);
  const std::size_t n = 8000000;
  std::vector<double> tail;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::abs(normal_ziggurat(ks));
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
  Keystream ks(key(3), 9);
  std::vector<double> mid;
  while (mid.size() < 200000) {
    const double v = std::abs(normal_ziggurat(ks));
    if (v > 0.5 && v < 3.6) mid.push_back(v);
  }
  const double lo = cdf(n01, 0.5), hi = cdf(n01, 3.6);
  EXPECT_GT(report("ziggurat |Z| on [0.5, 3.6], conditional",
                   ks_test(mid, [&](double x) { return (cdf(n01, x) - lo) / (hi - lo); })),
            kMinP);
}

TEST(KeystreamGamma, MatchesGammaCdf) {
  Keystream ks(key(4), 3);
  for (double shape : {1.0, 2.5, 54.0, 500.0}) {
    std::vector<double> g(100000);
    for (auto& v : g) v = gamma_keystream(ks, shape, 2.0);
    boost::math::gamma_distribution<> dist(shape, 2.0);
    EXPECT_GT(report("keystream gamma shape " + std::to_string(shape),
                     ks_test(g, [&](double x) { return cdf(dist, x); })),
              kMinP);
  }
}

TEST(BatchNoise, L2LaplaceNormIsGammaAndDirectionIsUniform) {
  // d = 54 (Forest Covertype), scale 3: ||Z|| ~ Gamma(54, 3); the first
  // coordinate of Z / ||Z|| is (2 Beta(26.5, 26.5) - 1) for a uniform direction.
  const std::size_t d = 54;
  std::vector<double> norms, first, scratch(d);
  for (std::uint64_t t = 1; t <= 60000; ++t) {
    std::vector<double> z(d, 0.0);
    Keystream ks(key(5), t);
    add_l2_laplace(ks, z.data(), d, 3.0, scratch.data());
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
    add_batch_noise(BatchNoiseKind::Gaussian, 2.5, key(6), t, z.data(), d);
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
  add_batch_noise(BatchNoiseKind::Gaussian, 1.0, key(7), 5, x.data(), d);
  add_batch_noise(BatchNoiseKind::Gaussian, 1.0, key(7), 5, y.data(), d);
  add_batch_noise(BatchNoiseKind::Gaussian, 1.0, key(7), 6, w.data(), d);
  EXPECT_EQ(x, y);
  EXPECT_NE(x, w);
}

}  // namespace
}  // namespace dptrain::privacy
