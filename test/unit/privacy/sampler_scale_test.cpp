// The noise samplers at the edges of double range (hostile review): a scale whose draws could round
// to inf is refused before any draw (before: exponential(DBL_MAX / 2) returned inf with probability
// e^-2 per draw, Gaussian noise of sigma 1e308 was inf beyond 1.8 standard deviations), and a
// scale just inside the bound never gives inf or NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"

namespace dptrain::privacy {
namespace {

constexpr double kMax = std::numeric_limits<double>::max();

template <typename F>
void expect_refused(F draw) {
  try {
    draw();
    ADD_FAILURE() << "a scale that can overflow was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(SamplerScale, ScalesThatCanOverflowAreRefused) {
  auto rng = RandomSource::seeded(41);
  std::vector<double> v(4, 0.0), scratch(4);
  expect_refused([&] { return exponential(rng, kMax / 2); });
  expect_refused([&] { return laplace(rng, kMax / 2); });
  expect_refused([&] { fill_laplace(rng, v.data(), v.size(), kMax / 2); });
  expect_refused([&] { return gamma(rng, 1.0, kMax / 2); });
  // Gamma(1e300 shape, scale 1): the draw is about 1e300 * scale; a shape of 1e306 overflows.
  expect_refused([&] { return gamma(rng, 1e306, 1.0); });
  expect_refused([&] { add_gaussian_noise(rng, v.data(), v.size(), 1e308); });
  expect_refused([&] { add_l2_laplace_noise(rng, v.data(), v.size(), 1e306, scratch.data()); });
}

TEST(SamplerScale, LargestAcceptedScalesGiveFiniteDraws) {
  auto rng = RandomSource::seeded(42);
  // Exponential / Laplace: at most 53 ln 2 = 36.7 scales, accepted up to DBL_MAX / 64.
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(std::isfinite(exponential(rng, kMax / 64)));
    ASSERT_TRUE(std::isfinite(laplace(rng, kMax / 64)));
  }
  // Gaussian: |Z| < 12.3, accepted up to DBL_MAX / 16.
  std::vector<double> v(20000, 0.0), scratch(8);
  add_gaussian_noise(rng, v.data(), v.size(), kMax / 16);
  for (double x : v) ASSERT_TRUE(std::isfinite(x));
  // L2-Laplace in d = 8: norm ~ Gamma(8, scale), accepted up to DBL_MAX / (256 * 9).
  for (int i = 0; i < 2000; ++i) {
    std::vector<double> w(8, 0.0);
    add_l2_laplace_noise(rng, w.data(), w.size(), kMax / (256 * 9), scratch.data());
    for (double x : w) ASSERT_TRUE(std::isfinite(x));
  }
}

TEST(SamplerScale, TinyPositiveScalesAreFiniteAndZeroOrNegativeRefused) {
  auto rng = RandomSource::seeded(43);
  const double tiny = std::numeric_limits<double>::denorm_min();
  for (int i = 0; i < 1000; ++i) {
    const double e = exponential(rng, tiny), l = laplace(rng, tiny);
    ASSERT_TRUE(std::isfinite(e) && e >= 0);
    ASSERT_TRUE(std::isfinite(l));
  }
  std::vector<double> v(4, 0.0), scratch(4);
  for (double bad : {0.0, -1.0, -tiny, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(exponential(rng, bad), Error);
    EXPECT_THROW(laplace(rng, bad), Error);
    EXPECT_THROW(gamma(rng, 2.0, bad), Error);
    EXPECT_THROW(add_gaussian_noise(rng, v.data(), v.size(), bad), Error);
    EXPECT_THROW(add_l2_laplace_noise(rng, v.data(), v.size(), bad, scratch.data()), Error);
  }
}

}  // namespace
}  // namespace dptrain::privacy
