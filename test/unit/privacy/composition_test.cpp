#include "core/privacy/composition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

TEST(Composition, BasicAddsUp) {
  const DpGuarantee total = basic_composition({{0.1, 1e-6}, {0.25, 0}, {1.0, 2e-6}});
  EXPECT_NEAR(total.epsilon, 1.35, 1e-15);
  EXPECT_NEAR(total.delta, 3e-6, 1e-21);
  const DpGuarantee k_fold = basic_composition(0.01, 1e-8, 300);
  EXPECT_NEAR(k_fold.epsilon, 3.0, 1e-13);
  EXPECT_NEAR(k_fold.delta, 3e-6, 1e-19);
  EXPECT_THROW(basic_composition(0.1, 1e-6, 0), Error);
  EXPECT_THROW(basic_composition({{-0.1, 0}}), Error);
}

TEST(Composition, AdvancedMatchesTheorem) {
  // eps = 0.1, delta = 1e-6, k = 100, delta' = 1e-5:
  //   sqrt(2 * 100 * ln(1e5)) * 0.1 = sqrt(200 * 11.5129255) * 0.1 = sqrt(2302.5851) * 0.1 = 4.7985259
  //   k eps (e^eps - 1) = 100 * 0.1 * 0.10517092 = 1.0517092
  //   eps' = 5.8502351;  delta_total = 100 * 1e-6 + 1e-5 = 1.1e-4.
  const DpGuarantee g = advanced_composition(0.1, 1e-6, 100, 1e-5);
  EXPECT_NEAR(g.epsilon, 5.8502351, 1e-6);
  EXPECT_NEAR(g.delta, 1.1e-4, 1e-18);
  // Pure per-step DP (delta = 0) is allowed: delta_total = delta'.
  EXPECT_NEAR(advanced_composition(0.1, 0, 100, 1e-5).delta, 1e-5, 1e-20);
}

TEST(Composition, AdvancedRejectsBadInput) {
  EXPECT_THROW(advanced_composition(0, 1e-6, 10, 1e-5), Error);
  EXPECT_THROW(advanced_composition(0.1, 1e-6, 0, 1e-5), Error);
  EXPECT_THROW(advanced_composition(0.1, 1e-6, 10, 0), Error);
  EXPECT_THROW(advanced_composition(0.1, 1e-6, 10, 1), Error);
  EXPECT_THROW(advanced_composition(0.1, 0.1, 10, 1e-5), Error);  // k delta + delta' >= 1
  EXPECT_THROW(advanced_composition(800, 0, 10, 1e-5), Error);    // e^800 overflows
  EXPECT_THROW(advanced_composition_step_epsilon(-1, 10, 1e-5), Error);
}

TEST(Composition, InverseMatchesBst14Vector) {
  // BST14 (Bassily et al. 2014, Alg. 1 with Dwork–Rothblum–Vadhan advanced composition): m = 60000, b = 50, k = 10 passes => T = 12000 steps;
  // eps = 1, delta = 1/m^2 => delta' = delta / 2 = 1 / 7.2e9 => eps_1 = 1.32628e-3.
  EXPECT_NEAR(advanced_composition_step_epsilon(1.0, 12000, 1 / 7.2e9), 1.32628e-3, 5e-9);
}

TEST(Composition, InverseRoundTrips) {
  for (double total : {0.01, 0.5, 1.0, 8.0, 100.0}) {
    for (std::int64_t k : {1, 10, 1000, 1000000}) {
      const double step = advanced_composition_step_epsilon(total, k, 1e-6);
      const double back = advanced_composition(step, 0, k, 1e-6).epsilon;
      EXPECT_LE(back, total) << total << " " << k;           // the safe side
      EXPECT_NEAR(back / total, 1.0, 1e-12) << total << " " << k;
    }
  }
}

// Totals up to the largest doubles: the bisection from hi ~ sqrt(total / k)
// needs ~570 halvings; with 200 it stopped at 0 for 1e300 (pfw then refused
// "epsilon of report-noisy-min must be positive and finite, got 0").
TEST(Composition, InverseOfHugeTotalsIsPositiveAndSafe) {
  for (double total : {1e200, 1e300, 1e308}) {
    const double step = advanced_composition_step_epsilon(total, 1000, 1e-6);
    const double back = advanced_composition(step, 0, 1000, 1e-6).epsilon;
    EXPECT_GT(step, 400) << total;  // the k eps (e^eps - 1) term dominates: eps ~ ln(total / k)
    EXPECT_LE(back, total) << total;  // the safe side
    EXPECT_NEAR(back / total, 1.0, 1e-9) << total;
  }
}

// The epsilon_0 solve at the edges of its inputs (hostile review; found sound): tiny and huge
// totals, one step to 4e18 steps, delta' subnormal or near 1. The step is positive and finite,
// re-accounts to at most the total, 1e-9 more exceeds it, and it is monotone in the total.
TEST(Composition, InverseAtTheEdgesSatisfiesItsTarget) {
  const std::int64_t ks[] = {1, 1000, 1000000000, 4000000000000000000};
  for (std::int64_t k : ks)
    for (double delta_prime : {std::numeric_limits<double>::denorm_min(), 1e-300, 1e-5, 0.999999}) {
      double previous = 0;
      for (double total : {1e-300, 1e-12, 1e-3, 1.0, 1e6, 1e300}) {
        const double step = advanced_composition_step_epsilon(total, k, delta_prime);
        ASSERT_TRUE(step > 0 && std::isfinite(step)) << total << " " << k << " " << delta_prime;
        EXPECT_LE(advanced_composition(step, 0, k, delta_prime).epsilon, total) << total << " " << k;
        EXPECT_GT(advanced_composition(step * (1 + 1e-9), 0, k, delta_prime).epsilon, total) << total << " " << k;
        EXPECT_GT(step, previous) << total << " " << k << " " << delta_prime;
        previous = step;
      }
    }
}

}  // namespace
}  // namespace dptrain::privacy
