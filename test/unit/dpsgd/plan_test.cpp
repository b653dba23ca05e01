// Planning DP-SGD runs (plan.h): calibration, defaults, the closed-form P-SGD option, refusals.
#include "core/dpsgd/plan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace dptrain::dpsgd {
namespace {

DpSgdRequest adult(const std::string& algorithm) {
  DpSgdRequest r;
  r.algorithm = algorithm;
  r.rows = 30162;
  r.dim = 104;
  r.expected_lot = 250;
  r.steps = 10000;
  r.clip_norm = 0.5;
  r.epsilon = 1.0;
  r.delta = 1e-5;
  return r;
}

TEST(DpSgdPlan, CalibratesTheSmallestSigma) {
  DpSgdRequest r = adult("dpadam");
  const DpSgdPlan p = plan_dpsgd(r);
  EXPECT_NEAR(p.sampling_rate, 250.0 / 30162, 1e-18);
  EXPECT_TRUE(p.accounted);
  EXPECT_LE(p.epsilon, 1.0);
  EXPECT_NEAR(p.epsilon, 1.0, 1e-6);
  const double sigma = p.account.noise_multiplier;
  // Pinned independently (mpmath, 40 digits): the smallest sigma with
  //   min_alpha [T ln(A_alpha)/(alpha - 1) + ln(1 - 1/alpha) - (ln delta + ln alpha)/(alpha - 1)] <= 1,
  //   A_alpha = 1 + sum_{k=2}^{alpha} C(alpha,k) (1-q)^(alpha-k) q^k expm1((k^2 - k)/(2 sigma^2))
  // (Mironov, Talwar & Zhang 2019, Sec. 3.2; Balle et al. 2020, Thm 21), q = 250/30162 = 8.288575e-3,
  // T = 10000, delta = 1e-5, bisection on sigma: sigma = 3.44553815468 (optimal order 18; orders
  // 64, 80 give 2.13, 2.64). A sensitivity of 2C (replace-one) or a q of 2 lot/n would need about
  // twice the noise; delta/T instead of delta, or sigma^2 for sigma, moves it by far more than 1e-8.
  EXPECT_NEAR(sigma / 3.44553815468, 1.0, 1e-8);
  EXPECT_EQ(p.account.optimal_order, 18);
  EXPECT_EQ(p.lots.noise_std, sigma * 0.5);
  EXPECT_EQ(p.lots.expected_lot, 250);
  EXPECT_EQ(p.lots.learning_rate, 1e-3);  // Adam's default
  // Slightly less noise would exceed the target.
  EXPECT_GT(privacy::sampled_gaussian_epsilon(p.sampling_rate, sigma * (1 - 1e-6), 10000, 1e-5).epsilon, 1.0);
  const auto& privacy = p.metadata.at("privacy");
  EXPECT_EQ(privacy.at("accountant"), "rdp");
  EXPECT_EQ(privacy.at("adjacency"), "add-remove");
  EXPECT_EQ(privacy.at("steps"), 10000);
  EXPECT_EQ(privacy.at("accounted"), true);
  EXPECT_EQ(privacy.at("models"), "binary");
  // One-vs-all: the same sigma (one joint mechanism, sensitivity C for all K models).
  r.models = 10;
  const DpSgdPlan ova = plan_dpsgd(r);
  EXPECT_EQ(ova.account.noise_multiplier, sigma);
  EXPECT_EQ(ova.metadata["privacy"]["models"], "one-vs-all, 10 models clipped jointly (no budget split)");
}

TEST(DpSgdPlan, NoiseMultiplierGivenReportsEpsilon) {
  DpSgdRequest r = adult("dpsgd");
  r.epsilon.reset();
  r.noise_multiplier = 4.0;
  r.learning_rate = 0.5;
  const DpSgdPlan p = plan_dpsgd(r);
  EXPECT_EQ(p.account.noise_multiplier, 4.0);
  EXPECT_EQ(p.epsilon, privacy::sampled_gaussian_epsilon(250.0 / 30162, 4.0, 10000, 1e-5).epsilon);
  // Independently (mpmath, the formula of CalibratesTheSmallestSigma at sigma = 4): 0.844433367087,
  // optimal order 20.
  EXPECT_NEAR(p.epsilon / 0.844433367087, 1.0, 1e-9);
  EXPECT_EQ(p.account.optimal_order, 20);
}

// A given noise multiplier of 1e-10 (almost no noise) was charged the RDP order floor, epsilon =
// 3.05e-5 at delta = 1e-5: the RDP series dropped every term (hostile review). By hand, order 2:
// RDP = ln(1 + q^2 expm1(1/sigma^2)) = 1e20 + 2 ln q, times 10000 steps: epsilon >= 1e24.
TEST(DpSgdPlan, AlmostNoNoiseIsChargedItsEpsilon) {
  DpSgdRequest r = adult("dpsgd");
  r.epsilon.reset();
  r.noise_multiplier = 1e-10;
  r.learning_rate = 0.5;
  EXPECT_GE(plan_dpsgd(r).epsilon, 1e24 * (1 - 1e-12));
}

TEST(DpSgdPlan, AdamWosmEffectiveStepAndAdadpTolerance) {
  const DpSgdPlan w = plan_dpsgd(adult("dpadamwosm"));
  // 1e-3 / (sigma C / L + 1e-8) with the calibrated sigma.
  EXPECT_DOUBLE_EQ(w.lots.learning_rate, 1e-3 / (w.account.noise_multiplier * 0.5 / 250 + 1e-8));
  const DpSgdPlan a = plan_dpsgd(adult("adadp"));
  // tau = sqrt(K d / (2 T)) = sqrt(104 / 20000) = 0.0721110.
  EXPECT_NEAR(a.lots.tolerance, 0.0721110, 1e-7);
  EXPECT_EQ(a.lots.learning_rate, 1e-3);
}

TEST(DpSgdPlan, ClosedFormPsgdIsRecordedAsNotAccounted) {
  // P-SGD closed form (Abadi et al. 2016, Thm 1 shape): n = 36176, lot 50, T = 100, claimed eps 0.1, delta = 1/n^2:
  // z = 4 q sqrt(T ln(1/delta)) / eps = 2.53303, whose RDP epsilon is 0.199 (improved).
  DpSgdRequest r;
  r.algorithm = "psgd";
  r.rows = 36176;
  r.dim = 10;
  r.expected_lot = 50;
  r.steps = 100;
  r.clip_norm = 1;
  r.epsilon = 0.1;
  r.delta = 1.0 / (36176.0 * 36176.0);
  r.learning_rate = 0.1;
  r.radius = 1;
  r.closed_form_noise = true;
  const DpSgdPlan p = plan_dpsgd(r);
  EXPECT_FALSE(p.accounted);
  EXPECT_NEAR(p.account.noise_multiplier, 2.53303, 1e-5);
  EXPECT_EQ(p.epsilon, 0.1);  // the claim
  EXPECT_NEAR(p.account.epsilon, 0.199, 5e-4);  // what the noise gives
  EXPECT_EQ(p.metadata["privacy"]["accounted"], false);
  EXPECT_EQ(p.metadata["privacy"]["claimed_epsilon"], 0.1);
  EXPECT_TRUE(p.metadata["privacy"].contains("warning"));
  // Sound psgd (the default) calibrates instead: much more noise for the same claim.
  r.closed_form_noise = false;
  const DpSgdPlan sound = plan_dpsgd(r);
  EXPECT_TRUE(sound.accounted);
  EXPECT_LE(sound.epsilon, 0.1);
  EXPECT_GT(sound.account.noise_multiplier, 2.53303);
  EXPECT_EQ(sound.lots.radius, 1);
}

// A finite but huge clipping norm made sigma C overflow: the lot state then
// refused itself as "malformed ... must come from dptrain itself".
TEST(DpSgdPlan, RefusesANoiseThatOverflows) {
  DpSgdRequest r = adult("dpadam");
  r.clip_norm = 1e308;
  try {
    plan_dpsgd(r);
    ADD_FAILURE() << "planned sigma C = inf";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the clipping norm C is too large: the noise sigma C overflows a double");
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
  }
  r.clip_norm = 1e300;  // sigma C still finite
  EXPECT_TRUE(std::isfinite(plan_dpsgd(r).lots.noise_std));
  // Finite, but above DBL_MAX / 16: a Gaussian draw could round to inf, so the sampler refuses
  // it at the first lot, after the charge; the plan (before the charge) refuses it now.
  r.clip_norm = 1e306;
  r.epsilon.reset();
  r.noise_multiplier = 100;  // sigma C = 1e308, finite
  try {
    plan_dpsgd(r);
    ADD_FAILURE() << "planned sigma C = 1e308, which no sampler draws";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the standard deviation of a noise distribution is too large for a double");
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
  }
}

TEST(DpSgdPlan, Refusals) {
  auto refuses = [](DpSgdRequest r) { EXPECT_THROW(plan_dpsgd(r), Error) << r.algorithm; };
  refuses(adult("dpsgd"));  // no learning rate
  DpSgdRequest both = adult("dpadam");
  both.noise_multiplier = 2;
  refuses(both);
  DpSgdRequest neither = adult("dpadam");
  neither.epsilon.reset();
  refuses(neither);
  refuses(adult("dpmomentum"));  // no momentum
  DpSgdRequest odd = adult("adadp");
  odd.steps = 9999;
  refuses(odd);
  DpSgdRequest closed = adult("dpadam");
  closed.closed_form_noise = true;
  refuses(closed);
  DpSgdRequest lot = adult("dpadam");
  lot.expected_lot = 30163;
  refuses(lot);
  DpSgdRequest floor = adult("dpadam");
  floor.epsilon = 1e-3;  // below twice the order floor at delta = 1e-5
  refuses(floor);
  DpSgdRequest name = adult("sgd");
  refuses(name);
  DpSgdRequest no_delta = adult("dpadam");
  no_delta.delta = 0;
  refuses(no_delta);
}

}  // namespace
}  // namespace dptrain::dpsgd
