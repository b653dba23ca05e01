// Statistical test of the exponential mechanism's sampler: selection
// frequencies against exp(-eps score / 2) normalized, by Pearson's
// chi-square goodness-of-fit test with fixed seeds. Threshold p > 1e-3: a
// correct sampler fails a freshly chosen seed with probability 1e-3 per check
// (once, when the seed is chosen; see statistics.h). Power: with 200000 draws
// a probability error of 0.005 on a cell of probability 0.1 gives a
// chi-square contribution of 200000 * 0.005^2 / 0.1 = 50, far beyond the
// 1e-3 critical value (~27 for 8 degrees of freedom).
#include <gtest/gtest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cstdio>
#include <vector>

#include "core/privacy/exponential_mechanism.h"

namespace dptrain::privacy {
namespace {

double chi_square_pvalue(const std::vector<double>& scores, double epsilon, int draws, std::uint64_t seed) {
  const std::vector<double> p = exponential_mechanism_probabilities(scores, epsilon, 1.0);
  std::vector<int> counts(scores.size(), 0);
  auto rng = RandomSource::seeded(seed);
  for (int i = 0; i < draws; ++i) ++counts[exponential_mechanism(scores, epsilon, 1.0, rng)];
  double chi2 = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double expected = p[i] * draws;
    chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
  }
  const boost::math::chi_squared_distribution<> dist(static_cast<double>(p.size() - 1));
  const double pvalue = cdf(complement(dist, chi2));
  std::printf("[ chi2 ] %zu candidates, eps %.3g: chi2 = %.3f, p = %.4g\n", p.size(), epsilon, chi2, pvalue);
  return pvalue;
}

TEST(ExponentialMechanismSampling, FrequenciesMatchTheDistribution) {
  // Held-out error counts of 9 candidates (a tuning grid), at three epsilons:
  // the probabilities range from near-uniform to concentrated.
  const std::vector<double> errors = {310, 305, 312, 330, 301, 303, 360, 308, 304};
  EXPECT_GT(chi_square_pvalue(errors, 0.01, 200000, 11), 1e-3);
  EXPECT_GT(chi_square_pvalue(errors, 0.3, 200000, 12), 1e-3);
  EXPECT_GT(chi_square_pvalue({0, 2, 4}, 1.0, 200000, 13), 1e-3);
}

TEST(ExponentialMechanismSampling, DetectsAWrongFactor) {
  // Power check of the test itself: sampling with exp(-eps s) (no factor 2)
  // must fail against the correct probabilities.
  const std::vector<double> scores = {0, 1, 2, 3};
  const std::vector<double> p = exponential_mechanism_probabilities(scores, 1.0, 1.0);
  std::vector<int> counts(4, 0);
  auto rng = RandomSource::seeded(14);
  const int draws = 200000;
  for (int i = 0; i < draws; ++i) ++counts[exponential_mechanism(scores, 2.0, 1.0, rng)];
  double chi2 = 0;
  for (int i = 0; i < 4; ++i) chi2 += (counts[i] - p[i] * draws) * (counts[i] - p[i] * draws) / (p[i] * draws);
  EXPECT_LT(cdf(complement(boost::math::chi_squared_distribution<>(3.0), chi2)), 1e-10);
}

}  // namespace
}  // namespace dptrain::privacy
