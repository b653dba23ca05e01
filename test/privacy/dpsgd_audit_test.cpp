// The empirical privacy audit of the DP-SGD family (CI version, seconds): on
// the gradient-canary neighbours of audit/dpsgd_scenarios.h (add/remove-one:
// the canary vs an all-zero row), dpsgd and dpadam must not be caught above
// their claimed epsilon, and a variant whose lots add sigma / 10 must be.
// Thresholds: each bound holds with probability >= 0.99 (alpha = 0.01), fixed
// seeds (see privacy_audit_test.cpp for why that is sound).
#include <gtest/gtest.h>

#include <cstdio>

#include "audit/dpsgd_scenarios.h"
#include "audit/report.h"

namespace dptrain::test::audit {
namespace {

// One full lot (q = 1, T = 1): the release pair is one Gaussian pair whose
// epsilon, the ceiling, is below the claim (the RDP conversion is not tight).
TEST(DpSgdAudit, OneFullLotStaysWithinItsClaimAndCeiling) {
  const Neighbours n = dpsgd_neighbours();
  const Scenario s = dpsgd_scenario("dpsgd, one lot of q = 1, eps 1", dpsgd_audit_config("dpsgd", 1.0, 10, 1), 1, true);
  const Result r = run_audit(s, n, ci_options(3000, 1000, 11));
  print_result(r);
  EXPECT_LE(r.bound.epsilon, r.claimed_epsilon);
  EXPECT_LE(r.bound.epsilon, r.ceiling) << "the noise is smaller than planned";
  EXPECT_GT(r.ceiling, 0.5) << "the ceiling should be near the claim";
  EXPECT_LT(r.ceiling, 1.0);
}

// Poisson lots (q = 0.5, 4 lots): the canary is in each lot with probability
// 1/2; the claim is the accountant's for the subsampled Gaussian.
TEST(DpSgdAudit, PoissonLotsStayWithinTheirClaim) {
  const Neighbours n = dpsgd_neighbours();
  for (const std::string algorithm : {"dpsgd", "dpadam"}) {
    const Scenario s =
        dpsgd_scenario(algorithm + ", q = 0.5, 4 lots, eps 1", dpsgd_audit_config(algorithm, 1.0, 5, 4), 1, false);
    const Result r = run_audit(s, n, ci_options(3000, 1000, 11));
    print_result(r);
    EXPECT_LE(r.bound.epsilon, r.claimed_epsilon) << algorithm;
  }
}

// sigma / 10: caught both with one full lot (true epsilon of the pair ~ 10x
// the claim of 0.25) and with Poisson lots.
TEST(DpSgdAudit, CatchesSigmaTenTimesTooSmall) {
  const Neighbours n = dpsgd_neighbours();
  const Scenario full =
      dpsgd_scenario("BROKEN dpsgd sigma/10, one lot of q = 1", dpsgd_audit_config("dpsgd", 0.25, 10, 1), 10, false);
  const Result a = run_audit(full, n, ci_options(1000, 300, 11));
  print_result(a);
  EXPECT_GT(a.bound.epsilon, a.claimed_epsilon) << "the broken variant was not caught";
  const Scenario lots =
      dpsgd_scenario("BROKEN dpsgd sigma/10, q = 0.5, 4 lots", dpsgd_audit_config("dpsgd", 0.25, 5, 4), 10, false);
  const Result b = run_audit(lots, n, ci_options(1000, 300, 11));
  print_result(b);
  EXPECT_GT(b.bound.epsilon, b.claimed_epsilon) << "the broken variant was not caught";
}

TEST(DpSgdAudit, NeighboursDifferOnlyInTheCanary) {
  const Neighbours n = dpsgd_neighbours();
  ASSERT_EQ(n.d.rows(), n.d_prime.rows());
  for (std::int64_t i = 0; i + 1 < n.d.rows(); ++i) {
    EXPECT_EQ(n.d.x[i], n.d_prime.x[i]);
    EXPECT_EQ(n.d.x[i][0], 0.0);
  }
  EXPECT_EQ(n.d.x.back(), (std::vector<double>{2.0, 0.0, 0.0}));
  EXPECT_EQ(n.d_prime.x.back(), (std::vector<double>{0.0, 0.0, 0.0}));
}

}  // namespace
}  // namespace dptrain::test::audit
