// Liu-Talwar random stopping (selection/liu_talwar.h): the privacy formula of Theorem 3.4 by
// hand, its inverse, and the state machine.
#include "core/selection/liu_talwar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/privacy/samplers.h"

namespace dptrain::selection {
namespace {

TEST(LiuTalwar, MaxCandidates) {
  // T = ceil((1/gamma) ln(1/delta2)): gamma 0.25, delta2 5e-6: 4 * 12.20607 = 48.82 -> 49;
  // gamma 0.1, delta2 1e-6: 10 * 13.81551 = 138.16 -> 139; gamma 1: ceil(ln(1/delta2)).
  EXPECT_EQ(liu_talwar_max_candidates(0.25, 5e-6), 49);
  EXPECT_EQ(liu_talwar_max_candidates(0.1, 1e-6), 139);
  EXPECT_EQ(liu_talwar_max_candidates(1.0, 0.5), 1);
  EXPECT_THROW(liu_talwar_max_candidates(0, 1e-6), Error);
  EXPECT_THROW(liu_talwar_max_candidates(1.5, 1e-6), Error);
  EXPECT_THROW(liu_talwar_max_candidates(0.5, 0), Error);
}

TEST(LiuTalwar, TheoremThreeFour) {
  // eps1 = 0.3, delta1 = 1e-12, gamma 0.25, delta2 5e-6 (T = 49): sqrt(2e-12) = 1.4142136e-6;
  // epsilon = 3 * 0.3 + 3 * 1.4142136e-6 = 0.90000424264; delta = 49 * 1.4142136e-6 + 5e-6 = 7.4296465e-5.
  const privacy::DpGuarantee g = liu_talwar_total(0.3, 1e-12, 0.25, 5e-6);
  EXPECT_NEAR(g.epsilon, 0.90000424264, 1e-11);
  EXPECT_NEAR(g.delta, 7.4296465e-5, 1e-12);
  // Pure candidates (delta1 = 0): 3 eps1 and delta2.
  const privacy::DpGuarantee pure = liu_talwar_total(0.2, 0, 0.5, 1e-6);
  EXPECT_NEAR(pure.epsilon, 0.6, 1e-15);
  EXPECT_EQ(pure.delta, 1e-6);
}

TEST(LiuTalwar, BudgetForATotal) {
  // Total (1, 1e-5), gamma 0.25, half of delta to delta2: delta2 = 5e-6, T = 49;
  // sqrt(2 delta1) = 5e-6 / 49 = 1.0204082e-7, delta1 = 5.2061641e-15;
  // eps1 = (1 - 3 * 1.0204082e-7) / 3 = 0.33333323129.
  const LiuTalwarBudget b = liu_talwar_budget(1.0, 1e-5, 0.25);
  EXPECT_EQ(b.max_candidates, 49);
  EXPECT_DOUBLE_EQ(b.delta2, 5e-6);
  EXPECT_NEAR(b.candidate_delta, 5.2061641e-15, 1e-21);
  EXPECT_NEAR(b.candidate_epsilon, 0.33333323129, 1e-11);
  EXPECT_NEAR(b.total.epsilon, 1.0, 1e-14);
  EXPECT_NEAR(b.total.delta, 1e-5, 1e-18);
  EXPECT_THROW(liu_talwar_budget(1e-8, 0.1, 0.5), Error);  // 3 sqrt(2 delta1) eats all of epsilon
}

// delta1 = ((delta - delta2) / T)^2 / 2 below the smallest normal double (2.2251e-308) is
// refused naming the split (before: 0 or subnormal, and a confusing "delta" refusal later).
// gamma 1, delta2 = delta / 2, T = ceil(ln(1/delta2)):
//   delta = 1e-150: T = 347, sqrt(2 delta1) = 5e-151 / 347 = 1.44092e-153, delta1 = 1.03813e-306 (normal);
//   delta = 1e-152: T = 351, 1.42450e-155, delta1 = 1.01460e-310 (subnormal): refused, and the
//     hint's smallest delta is T sqrt(2 DBL_MIN) / (1 - 1/2) = 351 * 2.10953e-154 * 2 = 1.48090e-151;
//   delta = 1e-300: T = 692, delta1 = (7.22543e-304)^2 / 2 = 0 (underflow): refused.
TEST(LiuTalwar, RefusesAPerCandidateDeltaTooSmallToRepresent) {
  const LiuTalwarBudget ok = liu_talwar_budget(1.0, 1e-150, 1.0);
  EXPECT_EQ(ok.max_candidates, 347);
  EXPECT_NEAR(ok.candidate_delta / 1.03813e-306, 1.0, 1e-5);
  for (double delta : {1e-152, 1e-300}) {
    try {
      liu_talwar_budget(1.0, delta, 1.0);
      ADD_FAILURE() << "accepted delta = " << delta;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
      EXPECT_NE(std::string(e.what()).find("split of delta over the Liu-Talwar candidates is too small to represent"),
                std::string::npos)
          << e.what();
      EXPECT_NE(e.hint().find("Use delta >= "), std::string::npos) << e.hint();
      if (delta == 1e-152) {
        EXPECT_NE(e.hint().find("1.4809e-151"), std::string::npos) << e.hint();
      }
    }
  }
}

TEST(LiuTalwar, StopsAtTheCapAndKeepsTheBest) {
  privacy::RandomSource rng = privacy::RandomSource::seeded(4);
  RandomStopping never(1e-12, 5, 3);  // the coin (practically) never stops it: the cap does
  const double scores[5] = {0.5, 0.9, 0.7, 0.9, 0.1};
  for (double s : scores) {
    const auto grid_point = never.next(rng);
    ASSERT_TRUE(grid_point.has_value());
    EXPECT_LT(*grid_point, 3u);
    never.record(s, rng);
  }
  EXPECT_TRUE(never.stopped());
  EXPECT_FALSE(never.next(rng).has_value());
  EXPECT_EQ(never.candidates_run(), 5);
  EXPECT_EQ(never.best_run(), 1);  // ties: the earliest
  EXPECT_EQ(never.best_score(), 0.9);
  RandomStopping once(1.0, 100, 2);  // gamma = 1: one candidate
  once.next(rng);
  once.record(0.3, rng);
  EXPECT_TRUE(once.stopped());
  RandomStopping misuse(0.5, 10, 2);
  EXPECT_THROW(misuse.record(1, rng), Error);
  misuse.next(rng);
  EXPECT_THROW(misuse.next(rng), Error);
}

TEST(LiuTalwar, NumberOfRunsIsATruncatedGeometric) {
  // gamma = 0.2, cap 10: P(runs = k) = 0.8^(k-1) 0.2 for k < 10, P(10) = 0.8^9. 20000
  // searches, chi-square with 9 degrees of freedom: the 0.999 quantile is 27.88. And the
  // grid point of every run is uniform over 4 points (chi-square, 3 df, 0.999 quantile 16.27).
  privacy::RandomSource rng = privacy::RandomSource::seeded(8);
  std::vector<double> runs(11, 0.0), points(4, 0.0);
  const int searches = 20000;
  for (int i = 0; i < searches; ++i) {
    RandomStopping s(0.2, 10, 4);
    while (auto p = s.next(rng)) {
      points[*p] += 1;
      s.record(0, rng);
    }
    runs[static_cast<std::size_t>(s.candidates_run())] += 1;
  }
  double chi2 = 0;
  for (int k = 1; k <= 10; ++k) {
    const double p = k < 10 ? std::pow(0.8, k - 1) * 0.2 : std::pow(0.8, 9);
    chi2 += (runs[k] - searches * p) * (runs[k] - searches * p) / (searches * p);
  }
  EXPECT_LT(chi2, 27.88);
  double total = 0;
  for (double c : points) total += c;
  double chi2_points = 0;
  for (double c : points) chi2_points += (c - total / 4) * (c - total / 4) / (total / 4);
  EXPECT_LT(chi2_points, 16.27);
}

TEST(LiuTalwar, NoisyCountScore) {
  // correct + Laplace(1/eps) from the same stream.
  privacy::RandomSource a = privacy::RandomSource::seeded(12), b = privacy::RandomSource::seeded(12);
  const double score = noisy_count_score(1234, 0.5, a);
  EXPECT_EQ(score, 1234 + privacy::laplace(b, 2.0));
}

}  // namespace
}  // namespace dptrain::selection
