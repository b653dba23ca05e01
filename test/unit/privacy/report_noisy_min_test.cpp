// Report-noisy-min: the selection probabilities of two candidates against the
// closed forms of the noise differences, the scale rule (2 Delta / eps for
// arbitrary scores, Delta / eps for monotone ones), and bad arguments.
#include "core/privacy/report_noisy_min.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

// Frequency of choosing candidate 0 among {0, a} over `draws` draws.
double first_chosen(double a, NoisyMinNoise noise, double scale, int draws) {
  RandomSource rng = RandomSource::seeded(42, 7);
  int zero = 0;
  for (int i = 0; i < draws; ++i) zero += report_noisy_min({0.0, a}, noise, scale, rng) == 0;
  return static_cast<double>(zero) / draws;
}

TEST(ReportNoisyMin, LaplaceSelectionMatchesTheDifferenceOfTwoLaplaces) {
  // Candidate 0 wins iff X0 - X1 < a with X0, X1 iid Lap(b); for t >= 0
  // P(X0 - X1 <= t) = 1 - (1/2) e^{-t/b} (1 + t/(2b)). a = b = 1: 1 - 0.75 e^-1 = 0.7240904.
  // 200000 draws: standard error 0.001; 5 sigma = 0.005.
  EXPECT_NEAR(first_chosen(1.0, NoisyMinNoise::Laplace, 1.0, 200000), 0.7240904, 0.005);
  // Doubling the scale (a = 1, b = 2): 1 - 0.5 e^-0.5 (1.25) = 0.6209184.
  EXPECT_NEAR(first_chosen(1.0, NoisyMinNoise::Laplace, 2.0, 200000), 0.6209184, 0.005);
}

TEST(ReportNoisyMin, ExponentialSelectionMatchesTheLaplaceDifference) {
  // Candidate 0 wins iff -E0 < a - E1 iff E1 - E0 < a, and E1 - E0 ~ Lap(b):
  // P = 1 - (1/2) e^{-a/b}. a = b = 1: 1 - 0.5 e^-1 = 0.8160603.
  EXPECT_NEAR(first_chosen(1.0, NoisyMinNoise::Exponential, 1.0, 200000), 0.8160603, 0.005);
}

TEST(ReportNoisyMin, ScaleRule) {
  EXPECT_DOUBLE_EQ(noisy_min_scale(0.5, 0.25, false), 4.0);  // 2 * 0.5 / 0.25
  EXPECT_DOUBLE_EQ(noisy_min_scale(0.5, 0.25, true), 2.0);   // 0.5 / 0.25
}

// A scale that overflows (2 * 1e300 / 1e-10) or whose draws could (1e307: Laplace up to 36.7 scales)
// is refused when computed, not returned as inf (before: inf, then a sampler error mid-run; hostile review).
TEST(ReportNoisyMin, ScaleBeyondDoubleRangeIsRefused) {
  for (auto [sensitivity, epsilon] : {std::pair<double, double>{1e300, 1e-10}, {1e307, 1.0}, {1e300, 1e-8}}) {
    try {
      const double scale = noisy_min_scale(sensitivity, epsilon, true);
      ADD_FAILURE() << "returned " << scale;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
      EXPECT_FALSE(e.hint().empty());
    }
  }
  EXPECT_DOUBLE_EQ(noisy_min_scale(1e300, 1e-4, true), 1e304);  // 64 * 1e304 < DBL_MAX: drawable
}

TEST(ReportNoisyMin, BadArguments) {
  RandomSource rng = RandomSource::seeded(1);
  EXPECT_THROW(report_noisy_min({}, NoisyMinNoise::Laplace, 1.0, rng), Error);
  EXPECT_THROW(report_noisy_min({0.0, NAN}, NoisyMinNoise::Laplace, 1.0, rng), Error);
  EXPECT_THROW(report_noisy_min({0.0}, NoisyMinNoise::Laplace, 0.0, rng), Error);
  EXPECT_THROW(noisy_min_scale(0.0, 1.0, true), Error);
  EXPECT_THROW(noisy_min_scale(1.0, INFINITY, true), Error);
  EXPECT_EQ(report_noisy_min({3.0}, NoisyMinNoise::Exponential, 1.0, rng), 0u);
}

}  // namespace
}  // namespace dptrain::privacy
