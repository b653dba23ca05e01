// The empirical privacy audit, CI version (a few seconds): bolt-on in the
// four scenarios and the white-box algorithms (SCS13 in four, BST14 in two)
// must not be caught exceeding their claimed epsilon, and deliberately broken
// variants (bolt-on's sensitivity / 10, the white-box per-batch noise / 10)
// must be caught. Harness, statistics and scenarios: test/privacy/audit/ and
// src/core/privacy/audit_statistics.h; the long version is bench/privacy_audit.
//
// Soundness of the thresholds: each bound holds with probability >= 0.99
// (alpha = 0.01). With fixed seeds the outcome is deterministic, so a correct
// implementation fails a freshly chosen seed with probability <= 1% per
// scenario, once, when the seeds are chosen; after that the outcome never
// changes (the same argument as test/privacy/statistics.h).
#include <gtest/gtest.h>

#include <cstdio>

#include "audit/scenarios.h"
#include "audit/report.h"

namespace dptrain::test::audit {
namespace {

TEST(PrivacyAudit, BoltonStaysWithinItsClaimInAllFourScenarios) {
  const Neighbours n = standard_neighbours();
  for (const Scenario& s : bolton_scenarios()) {
    const Result r = run_audit(s, n, ci_options(1500, 400, 7));
    print_result(r);
    EXPECT_LE(r.bound.epsilon, r.claimed_epsilon) << s.name;
    // The audit has power: in the pure epsilon-DP scenarios the neighbouring
    // models differ by (nearly) the full sensitivity, so the bound must come
    // close to the claim (it would not if the noise were, say, twice too
    // large). A threshold test on a Gaussian at this epsilon needs far more
    // runs to show anything (bench/privacy_audit does); its power is shown by
    // catching the broken Gaussian variant below.
    if (!s.config.delta) {
      EXPECT_GT(r.bound.epsilon, 0.5 * r.claimed_epsilon) << s.name;
    }
    // The noiseless neighbours differ by exactly Delta in the convex
    // scenarios (see scenarios.h) and by 0.89 Delta in the strongly convex
    // ones (the regularizer contracts the canary's earlier contributions).
    EXPECT_GT(r.noiseless_gap / r.sensitivity, 0.85) << s.name << ": the canary should move the model by ~Delta";
    EXPECT_LE(r.noiseless_gap / r.sensitivity, 1.0 + 1e-9) << s.name << ": the neighbours differ by more than Delta";
  }
}

TEST(PrivacyAudit, CatchesBoltonWithTheSensitivityDividedByTen) {
  const Neighbours n = standard_neighbours();
  for (const Scenario& s : broken_scenarios(0.25)) {
    const Result r = run_audit(s, n, ci_options(800, 200, 7));
    print_result(r);
    EXPECT_GT(r.bound.epsilon, r.claimed_epsilon) << s.name << ": the broken variant was not caught";
  }
}

// White-box algorithms on the one-update canary tables (scenarios.h): the
// release pair is exactly one Laplace or Gaussian mechanism with the plan's
// scale, whose epsilon (the ceiling) is computed from the plan.
TEST(PrivacyAudit, WhiteBoxStaysWithinItsClaimAndItsCeiling) {
  const Neighbours n = whitebox_neighbours();
  for (const Scenario& s : whitebox_scenarios()) {
    const bool pure = !s.config.delta;
    const Result r = run_audit(s, n, pure ? ci_options(1500, 400, 7) : ci_options(3000, 1000, 7));
    print_result(r);
    EXPECT_LE(r.bound.epsilon, r.claimed_epsilon) << s.name;
    // The bound holds (with probability >= 0.99) for the true epsilon of the
    // release pair, which is the ceiling if the epochs draw the noise the
    // plan says: a stronger check than the claim when the analysis is loose.
    EXPECT_LE(r.bound.epsilon, r.ceiling) << s.name << ": the noise is smaller than planned";
    // Only the canary moves the model, by exactly what the scenario says.
    EXPECT_NEAR(r.noiseless_gap / r.gap_bound, 1.0, 1e-9) << s.name;
    if (s.config.algorithm == "scs13") {
      // One update spends the whole budget: the analysis is exactly tight.
      EXPECT_NEAR(r.ceiling, r.claimed_epsilon, 1e-6) << s.name;
    } else {
      // BST14, T = 1, eps = 1, delta = 1e-5: eps_1 = 0.19397 (advanced
      // composition, sqrt(2 ln(2e5)) eps_1 + eps_1 (e^eps_1 - 1) = 1), sigma =
      // analytic(Delta = 2, eps_1, delta/2) = 35.264, and the Gaussian pair
      // (shift 2, sigma 35.264) is 0.1836-DP at delta = 1e-5 (stdlib Python
      // bisection on the Balle-Wang profile, independent of this code).
      EXPECT_NEAR(r.ceiling, 0.1836, 5e-4) << s.name;
    }
    if (pure) {
      EXPECT_GT(r.bound.epsilon, 0.5 * r.claimed_epsilon) << s.name << ": the audit lacks power";
    }
  }
}

// SCS13 at a claimed epsilon of 0.25 (true epsilon 2.5 for L2-Laplace, 3.16
// for the Gaussian). BST14's own analysis is ~5x loose at one update, so its
// noise / 10 makes the true epsilon only 2.295 for a claim of 1; a threshold
// test on a Gaussian pair needs ~30000 runs per table to certify more than 1
// (expected bound ~1.2; a run costs ~12 us, so ~1 s per scenario).
TEST(PrivacyAudit, CatchesWhiteBoxWithTheNoiseDividedByTen) {
  const Neighbours n = whitebox_neighbours();
  for (const Scenario& s : broken_whitebox_scenarios(0.25, 1.0, 10)) {
    const bool bst14 = s.config.algorithm == "bst14";
    const Result r = run_audit(s, n, bst14 ? ci_options(30000, 5000, 7) : ci_options(800, 200, 7));
    print_result(r);
    EXPECT_GT(r.bound.epsilon, r.claimed_epsilon) << s.name << ": the broken variant was not caught";
    EXPECT_LE(r.bound.epsilon, r.ceiling) << s.name;
  }
}

// Bolt-on's joint one-vs-all release (options.multiclass_noise = 'joint'),
// K = 16 classes, on the feature-flip canary of scenarios.h: the noiseless
// 16 x 1 matrices differ by sqrt(16) Delta, and the release pair is one
// Gaussian mechanism whose epsilon (the ceiling) is the claim (measured:
// bound 0.244 for a claim of 1, gap exactly sqrt(K) Delta). A variant that
// forgets sqrt(K), i.e. adds the noise of one model, is caught: with K = 64
// its noise is 8x too small and its true epsilon 2.45 for a claim of 0.25
// (measured bound 0.59; with K = 16, true epsilon 1.14, 800 runs could not
// show it).
TEST(PrivacyAudit, BoltonJointMulticlassReleaseStaysWithinItsClaim) {
  const Neighbours n = feature_flip_neighbours(16);
  const Result r = run_audit(joint_multiclass_scenario("bolton one-vs-all joint (eps,delta)-DP, K=16", 16, 1.0), n,
                             ci_options(3000, 1000, 7));
  print_result(r);
  EXPECT_LE(r.bound.epsilon, r.claimed_epsilon);
  EXPECT_NEAR(r.ceiling, r.claimed_epsilon, 1e-6) << "sigma is not calibrated to sqrt(K) Delta";
  EXPECT_GT(r.noiseless_gap / r.gap_bound, 0.85) << "the canary should move every model by ~Delta";
  EXPECT_LE(r.noiseless_gap / r.gap_bound, 1.0 + 1e-9) << "the neighbours differ by more than sqrt(K) Delta";
}

TEST(PrivacyAudit, CatchesAJointMulticlassReleaseThatForgetsSqrtK) {
  const Neighbours n = feature_flip_neighbours(64);
  const Result r = run_audit(joint_multiclass_scenario("BROKEN joint without sqrt(K), K=64", 64, 0.25, 8.0), n,
                             ci_options(2000, 500, 7));
  print_result(r);
  EXPECT_GT(r.bound.epsilon, r.claimed_epsilon) << "the broken variant was not caught";
  EXPECT_LE(r.bound.epsilon, r.ceiling);
}

TEST(PrivacyAudit, GaussianPairEpsilonInvertsTheCalibration) {
  for (double eps : {0.05, 0.25, 1.0, 4.0})
    for (double delta : {1e-9, 1e-5, 1e-2})
      EXPECT_NEAR(gaussian_pair_epsilon(2.0, privacy::gaussian_sigma(2.0, eps, delta), delta), eps, 1e-6 * eps)
          << eps << " " << delta;
  EXPECT_EQ(gaussian_pair_epsilon(2.0, 1e6, 1e-5), 0.0);  // indistinguishable below delta
}

TEST(PrivacyAudit, WhiteBoxNeighboursAreZeroRowsAndTheCanary) {
  const Neighbours n = whitebox_neighbours();
  ASSERT_EQ(n.d.rows(), 10);
  ASSERT_EQ(n.d.x, n.d_prime.x);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(n.d.x[i][0], 0.0);
    EXPECT_EQ(n.d.y[i], n.d_prime.y[i]);
  }
  EXPECT_EQ(n.d.x[9][0], 1.0);
  EXPECT_EQ(n.d.y[9], 1.0);
  EXPECT_EQ(n.d_prime.y[9], 0.0);
}

TEST(PrivacyAudit, HarnessIsDeterministic) {
  const Neighbours n = standard_neighbours();
  const Scenario s = bolton_scenarios().front();
  const Result a = run_audit(s, n, ci_options(100, 50, 7)), b = run_audit(s, n, ci_options(100, 50, 7));
  EXPECT_EQ(a.counts.false_negatives, b.counts.false_negatives);
  EXPECT_EQ(a.counts.false_positives, b.counts.false_positives);
  EXPECT_EQ(a.threshold, b.threshold);
}

TEST(PrivacyAudit, NeighboursDifferInExactlyTheCanaryLabel) {
  const Neighbours n = standard_neighbours();
  ASSERT_EQ(n.d.rows(), 100);
  ASSERT_EQ(n.d.x, n.d_prime.x);
  int differing = 0;
  for (std::size_t i = 0; i < n.d.y.size(); ++i) differing += n.d.y[i] != n.d_prime.y[i];
  EXPECT_EQ(differing, 1);
  EXPECT_EQ(n.d.y[99], 1.0);
  EXPECT_EQ(n.d_prime.y[99], 0.0);
  EXPECT_EQ(n.d.x[99][0], 1.0);
}

}  // namespace
}  // namespace dptrain::test::audit
