// Bolt-on sensitivity bounds (src/core/privacy/bolton_sensitivity.h):
// pinned to Wu et al. 2017 (Thm 1, Cor. 1-2) values and small cases computed by hand, and
// cross-checked against a brute-force maximisation of the growth recursion
// over all positions of the differing row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "core/error.h"
#include "core/privacy/bolton_sensitivity.h"

namespace dptrain::privacy::bolton {
namespace {

constexpr double kRel = 1e-5;  // the §13 values are given to 6 digits

RunShape shape(std::int64_t m, std::int64_t b, int k) {
  RunShape s;
  s.rows = m;
  s.batch_size = b;
  s.epochs = k;
  return s;
}

// --- Wu et al. 2017, worked values --------------------------------------------------------

TEST(BoltonSensitivity, ConvexMnistLikeValuesOfSection13) {
  const RunShape mnist = shape(60000, 50, 10);
  const double offset = std::sqrt(60000.0);  // m^c, c = 0.5
  // 2 k L eta / b = 2 * 10 * 1 * (1/sqrt(60000)) / 50 = 20 / 12247.45 = 1.63299e-3
  EXPECT_NEAR(convex_constant_step(1.0, 1.0, 1.0 / std::sqrt(60000.0), mnist), 1.63299e-3, 1.63299e-3 * kRel);
  // (4/50) sum_{j=0}^{9} 1/(1200 j + 1 + 244.949) = 0.08 * 6.19576e-3 = 4.95661e-4
  EXPECT_NEAR(convex_decreasing_step(1.0, 1.0, offset, mnist), 4.95661e-4, 4.95661e-4 * kRel);
  // (4/50) sum_{j=0}^{9} 1/(sqrt(1200 j + 1) + 244.949) = 0.08 * 0.0323926 = 2.59141e-3
  EXPECT_NEAR(convex_sqrt_step(1.0, 1.0, offset, mnist), 2.59141e-3, 2.59141e-3 * kRel);
}

TEST(BoltonSensitivity, StronglyConvexValuesOfSection13) {
  // L = 1 + lambda R = 2 (R = 1/lambda), beta = 1 + lambda, gamma = lambda,
  // m = 60000, b = 50, k = 10: T = 12000 >= beta/gamma, so
  // Delta = 2L/(gamma b U) = 4/(lambda 60000).
  const RunShape mnist = shape(60000, 50, 10);
  EXPECT_NEAR(strongly_convex_decreasing_step(2.0, 1.0 + 1e-4, 1e-4, mnist), 0.666667, 0.666667 * kRel);
  EXPECT_NEAR(strongly_convex_decreasing_step(2.0, 1.0 + 1e-3, 1e-3, mnist), 0.0666667, 0.0666667 * kRel);
  EXPECT_NEAR(strongly_convex_decreasing_step(2.0, 1.0 + 1e-2, 1e-2, mnist), 0.00666667, 0.00666667 * kRel);
  // Not divided by b (trap T1): the TFP-BoltOn value would be 50x smaller.
  EXPECT_GT(strongly_convex_decreasing_step(2.0, 1.0 + 1e-4, 1e-4, mnist), 0.6);
  // Independent of k once T >= beta/gamma: 20 epochs give the same bound.
  EXPECT_NEAR(strongly_convex_decreasing_step(2.0, 1.0 + 1e-4, 1e-4, shape(60000, 50, 20)), 0.666667,
              0.666667 * kRel);
}

// --- small cases by hand ---------------------------------------------------------
// m = 10, b = 3: U = ceil(10/3) = 4 updates per epoch (batches 3, 3, 3, 1).

TEST(BoltonSensitivity, ConvexConstantByHand) {
  const RunShape s = shape(10, 3, 2);
  // 2 k L eta / b = 2 * 2 * 1 * 0.5 / 3 = 2/3
  EXPECT_NEAR(convex_constant_step(1.0, 1.0, 0.5, s), 2.0 / 3.0, 1e-15);
  // averaged: (2 L eta / b)(k + 1)/2 = (1/3)(3/2) = 1/2
  EXPECT_NEAR(convex_constant_step(1.0, 1.0, 0.5, s, Output::UniformAverage), 0.5, 1e-15);
  // eta = 2/beta exactly is allowed (Lemma 1.1 is inclusive)
  EXPECT_NEAR(convex_constant_step(1.0, 4.0, 0.5, s), 2.0 / 3.0, 1e-15);
}

TEST(BoltonSensitivity, ConvexDecreasingByHand) {
  // beta = 1, offset = 1: eta_1 = 2/(1+1) = 1, eta_5 = 2/(5+1) = 1/3.
  // Delta = (2/3)(1 + 1/3) = 8/9; average = (2/3)(1 * 2/2 + (1/3) * 1/2) = 7/9.
  const RunShape s = shape(10, 3, 2);
  EXPECT_NEAR(convex_decreasing_step(1.0, 1.0, 1.0, s), 8.0 / 9.0, 1e-15);
  EXPECT_NEAR(convex_decreasing_step(1.0, 1.0, 1.0, s, Output::UniformAverage), 7.0 / 9.0, 1e-15);
}

TEST(BoltonSensitivity, ConvexSqrtByHand) {
  // beta = 2, offset = 1: eta_1 = 2/(2 * 2) = 0.5, eta_5 = 1/(sqrt 5 + 1) = 0.309017.
  // Delta = (2/3)(0.809017) = 0.539345
  EXPECT_NEAR(convex_sqrt_step(1.0, 2.0, 1.0, shape(10, 3, 2)), (2.0 / 3.0) * (0.5 + 1.0 / (std::sqrt(5.0) + 1.0)),
              1e-15);
  EXPECT_NEAR(convex_sqrt_step(1.0, 2.0, 1.0, shape(10, 3, 2)), 0.539345, 1e-6);
}

TEST(BoltonSensitivity, StronglyConvexDecreasingByHand) {
  // L = 2, beta = 1.5, gamma = 0.5: t0 = ceil(beta/gamma) = 3; T = 2 * 4 = 8.
  // eta_T = min(1/1.5, 1/(0.5 * 8)) = 0.25; Delta = k (2L/b) eta_T = 2 (4/3) 0.25 = 2/3,
  // = 2L/(gamma b U) = 4/(0.5 * 12); below the paper's 2L/(gamma m) = 0.8 since b does not divide m.
  const RunShape s = shape(10, 3, 2);
  EXPECT_NEAR(strongly_convex_decreasing_step(2.0, 1.5, 0.5, s), 2.0 / 3.0, 1e-15);
  // Average: steps t = 1..8: 2/3, 2/3, 2/3, 1/2 | 2/5, 1/3, 2/7, 1/4
  //   S_1 = 2.5, S_2 = 1.2690476; (2L/(bT))(1 S_1 + 2 S_2) = (1/6)(5.0380952) = 0.8396825
  const double s2 = 0.4 + 1.0 / 3.0 + 2.0 / 7.0 + 0.25;
  EXPECT_NEAR(strongly_convex_decreasing_step(2.0, 1.5, 0.5, s, Output::UniformAverage), (2.5 + 2 * s2) / 6.0, 1e-15);
  // The averaged iterate is MORE sensitive than the last one here (trap T22).
  EXPECT_GT((2.5 + 2 * s2) / 6.0, 2.0 / 3.0);
  // m = 4, b = 2, k = 1: T = 2 < beta/gamma = 3, every step is 1/beta; Delta = k (2L/b)/beta = 2/1.5 = 4/3.
  EXPECT_NEAR(strongly_convex_decreasing_step(2.0, 1.5, 0.5, shape(4, 2, 1)), (4.0 / 2.0) / 1.5 * 1, 1e-15);
}

TEST(BoltonSensitivity, StronglyConvexConstantByHand) {
  // L = 2, beta = 2, gamma = 0.5, eta = 0.4 <= 1/beta: rho = 0.8, U = 4, k = 2.
  // Delta = (2 eta L / b)(1 + rho^4) = (1.6/3)(1.4096) = 0.7517867
  const RunShape s = shape(10, 3, 2);
  EXPECT_NEAR(strongly_convex_constant_step(2.0, 2.0, 0.5, 0.4, s), 1.6 / 3.0 * 1.4096, 1e-14);
  // Average: (1.6/3)(1 + (rho + rho^2 + rho^3 + rho^4)(G_0 + G_1)/T)
  //        = (1.6/3)(1 + 2.3616 * 1 / 8) = 0.6907733
  EXPECT_NEAR(strongly_convex_constant_step(2.0, 2.0, 0.5, 0.4, s, Output::UniformAverage),
              1.6 / 3.0 * (1.0 + 2.3616 / 8.0), 1e-14);
  // The paper's infinite-pass form (2 eta L/b)/(1 - rho^{m/b}) is an upper bound.
  EXPECT_LT(strongly_convex_constant_step(2.0, 2.0, 0.5, 0.4, shape(10, 3, 50)),
            1.6 / 3.0 / (1.0 - std::pow(0.8, 10.0 / 3.0)));
}

// --- preconditions ----------------------------------------------------------------

TEST(BoltonSensitivity, PreconditionsAreEnforcedWithClearErrors) {
  const RunShape s = shape(100, 10, 3);
  try {
    convex_constant_step(1.0, 1.0, 2.5, s);
    FAIL() << "eta > 2/beta accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("2/beta"), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
  try {
    strongly_convex_constant_step(2.0, 1.1, 0.1, 1.0, s);
    FAIL() << "eta > 1/beta accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1/beta"), std::string::npos) << e.what();
  }
  EXPECT_THROW(strongly_convex_decreasing_step(2.0, 1.0, 0.0, s), Error);
  EXPECT_THROW(strongly_convex_decreasing_step(2.0, 1.0, 2.0, s), Error);  // gamma > beta
  EXPECT_THROW(convex_constant_step(1.0, 1.0, 0.5, shape(0, 1, 1)), Error);
  EXPECT_THROW(convex_constant_step(1.0, 1.0, 0.5, shape(10, 0, 1)), Error);
  EXPECT_THROW(convex_constant_step(1.0, 1.0, 0.5, shape(10, 1, 0)), Error);
  EXPECT_THROW(convex_decreasing_step(1.0, 1.0, -1.0, s), Error);
  EXPECT_THROW(convex_constant_step(0.0, 1.0, 0.5, s), Error);
  StepSchedule inv;
  inv.kind = ScheduleKind::InverseSqrt;
  inv.eta = 0.1;
  EXPECT_THROW(sensitivity(inv, LossConstants{1.0, 1.0, 0.0}, s), Error);
}

TEST(BoltonSensitivity, DispatchPicksTheLemmaOfTheSchedule) {
  const RunShape s = shape(60000, 50, 10);
  StepSchedule c;
  c.kind = ScheduleKind::Constant;
  c.eta = 0.5;
  Bound convex = sensitivity(c, LossConstants{1.0, 1.0, 0.0}, s);
  EXPECT_FALSE(convex.strongly_convex);
  EXPECT_NE(convex.rule.find("Corollary 1"), std::string::npos);
  EXPECT_DOUBLE_EQ(convex.sensitivity, convex_constant_step(1.0, 1.0, 0.5, s));
  Bound sc = sensitivity(c, LossConstants{2.0, 1.01, 0.01}, s);
  EXPECT_TRUE(sc.strongly_convex);
  EXPECT_NE(sc.rule.find("Lemma 7"), std::string::npos);
  StepSchedule d;
  d.kind = ScheduleKind::StronglyConvex;
  d.beta = 1.01;
  d.gamma = 0.01;
  Bound l8 = sensitivity(d, LossConstants{2.0, 1.01, 0.01}, s, Output::UniformAverage);
  EXPECT_NE(l8.rule.find("Lemma 8"), std::string::npos);
  EXPECT_NE(l8.rule.find("Lemma 10"), std::string::npos);
  EXPECT_DOUBLE_EQ(l8.sensitivity, strongly_convex_decreasing_step(2.0, 1.01, 0.01, s, Output::UniformAverage));
}

// --- brute force: maximise the growth recursion over positions -----------------------
//
// For iterate t' and a differing update s <= t', the growth recursion gives
// the contribution (2L/b) eta_s prod_{u=s+1}^{t'} rho_u (rho_u = 1 convex,
// 1 - eta_u gamma strongly convex). The row's position in each epoch is free,
// so Delta_{t'} = sum over epochs e started by t' of the max over s in epoch
// e, s <= t'. Last iterate: Delta_T; average: mean_t Delta_t.
struct Reference {
  double last = 0.0, average = 0.0;
};

Reference brute_force(double L, std::int64_t b, std::int64_t U, int k, const std::function<double(double)>& eta,
                      double gamma) {
  const std::int64_t T = U * k;
  Reference r;
  // contribution[e] = max over s in epoch e (s <= t) of c(s, t), updated as t grows:
  // every t multiplies the old values by rho_t, and the current epoch also
  // offers s = t itself.
  std::vector<double> best(k, 0.0);
  double total_over_t = 0.0;
  for (std::int64_t t = 1; t <= T; ++t) {
    const double rho = gamma > 0 ? 1.0 - eta(static_cast<double>(t)) * gamma : 1.0;
    const int epoch = static_cast<int>((t - 1) / U);
    for (int e = 0; e <= epoch; ++e) best[e] *= rho;
    best[epoch] = std::max(best[epoch], 2.0 * L / b * eta(static_cast<double>(t)));
    double delta_t = 0.0;
    for (int e = 0; e <= epoch; ++e) delta_t += best[e];
    total_over_t += delta_t;
    if (t == T) r.last = delta_t;
  }
  r.average = total_over_t / static_cast<double>(T);
  return r;
}

TEST(BoltonSensitivity, ClosedFormsMatchTheBruteForceGrowthRecursion) {
  std::mt19937_64 gen(12345);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); };
  auto integer = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(gen); };
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t m = integer(1, 300), b = integer(1, m);
    const int k = static_cast<int>(integer(1, 6));
    const RunShape s = shape(m, b, k);
    const std::int64_t U = s.updates_per_epoch();
    const double L = uniform(0.5, 3.0), beta = uniform(0.5, 5.0);
    SCOPED_TRACE("m=" + std::to_string(m) + " b=" + std::to_string(b) + " k=" + std::to_string(k));

    const double eta = uniform(0.01, 2.0 / beta);
    Reference r = brute_force(L, b, U, k, [&](double) { return eta; }, 0.0);
    EXPECT_NEAR(convex_constant_step(L, beta, eta, s), r.last, 1e-12 * r.last);
    EXPECT_NEAR(convex_constant_step(L, beta, eta, s, Output::UniformAverage), r.average, 1e-12 * r.average);

    const double offset = std::pow(static_cast<double>(m), uniform(0.0, 0.99));
    r = brute_force(L, b, U, k, [&](double t) { return 2.0 / (beta * (t + offset)); }, 0.0);
    EXPECT_NEAR(convex_decreasing_step(L, beta, offset, s), r.last, 1e-12 * r.last);
    EXPECT_NEAR(convex_decreasing_step(L, beta, offset, s, Output::UniformAverage), r.average, 1e-12 * r.average);
    r = brute_force(L, b, U, k, [&](double t) { return 2.0 / (beta * (std::sqrt(t) + offset)); }, 0.0);
    EXPECT_NEAR(convex_sqrt_step(L, beta, offset, s), r.last, 1e-12 * r.last);
    EXPECT_NEAR(convex_sqrt_step(L, beta, offset, s, Output::UniformAverage), r.average, 1e-12 * r.average);

    // Strongly convex: gamma from tiny (all steps 1/beta) to beta.
    const double gamma = beta * std::pow(10.0, uniform(-4.0, 0.0));
    const double eta_sc = uniform(0.01, 1.0) / beta;
    r = brute_force(L, b, U, k, [&](double) { return eta_sc; }, gamma);
    EXPECT_NEAR(strongly_convex_constant_step(L, beta, gamma, eta_sc, s), r.last, 1e-10 * r.last);
    EXPECT_NEAR(strongly_convex_constant_step(L, beta, gamma, eta_sc, s, Output::UniformAverage), r.average,
                1e-10 * r.average);
    // Lemma 8's closed form is an upper bound on the exact maximisation.
    r = brute_force(L, b, U, k, [&](double t) { return std::min(1.0 / beta, 1.0 / (gamma * t)); }, gamma);
    EXPECT_GE(strongly_convex_decreasing_step(L, beta, gamma, s), r.last * (1 - 1e-12));
    EXPECT_GE(strongly_convex_decreasing_step(L, beta, gamma, s, Output::UniformAverage), r.average * (1 - 1e-12));
    // ... and never above the paper's 2L/(gamma m).
    EXPECT_LE(strongly_convex_decreasing_step(L, beta, gamma, s), 2.0 * L / (gamma * m) * (1 + 1e-12));
  }
}

TEST(BoltonSensitivity, StronglyConvexAverageIsAccurateForLongRuns) {
  // Exercises the asymptotic harmonic sums: m = 10^6, b = 1, k = 3, beta/gamma = 1000.
  const RunShape s = shape(1000000, 1, 3);
  const double L = 2.0, beta = 1.001, gamma = 0.001;
  long double direct = 0.0;
  for (std::int64_t t = 1; t <= 3000000; ++t) {
    const long double eta = std::min(1.0L / beta, 1.0L / (gamma * static_cast<long double>(t)));
    direct += static_cast<long double>((t - 1) / 1000000 + 1) * eta;
  }
  const double expected = static_cast<double>(2.0L * L / (1.0L * 3000000.0L) * direct);
  EXPECT_NEAR(strongly_convex_decreasing_step(L, beta, gamma, s, Output::UniformAverage), expected, 1e-12 * expected);
}

// Lemma 7 when eta gamma underflows (hostile review): eta = 1e-300 (= 1/beta), gamma = 1e-300, so
// eta gamma rounds to 0 and rho = 1. By hand, m = b = 1 (U = 1), k = 3, L = 1: base 2 eta L / b =
// 2e-300; last iterate base * G_3 = base * 3 = 6e-300; average base (1 + U (G_0 + G_1 + G_2) / T)
// = base (1 + 3/3) = 4e-300. Before: NaN (0/0).
TEST(BoltonSensitivity, StronglyConvexConstantStepWhenEtaGammaUnderflows) {
  EXPECT_DOUBLE_EQ(strongly_convex_constant_step(1, 1e300, 1e-300, 1e-300, shape(1, 1, 3)), 6e-300);
  EXPECT_DOUBLE_EQ(strongly_convex_constant_step(1, 1e300, 1e-300, 1e-300, shape(1, 1, 3), Output::UniformAverage),
                   4e-300);
}

}  // namespace
}  // namespace dptrain::privacy::bolton
