// SCS13 and BST14 plans: every noise scale and BST14's per-update budget
// pinned to values computed by hand (the arithmetic is in the comments; the
// analytic-Gaussian and RDP values were computed independently with 50-digit
// arithmetic, mpmath, from Balle & Wang's Theorem 8 and the RDP formulas).
#include <gtest/gtest.h>

#include <cmath>

#include "core/algorithms/bst14.h"
#include "core/algorithms/scs13.h"
#include "core/error.h"
#include "core/engine/epoch_run.h"
#include "core/engine/pass.h"

namespace dptrain {
namespace {

TrainingConfig config(const std::string& algorithm, std::int64_t rows, int dim, std::int64_t b, int epochs,
                      double epsilon, std::optional<double> delta, int classes = 2) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.rows = rows;
  c.dim = dim;
  c.batch_size = b;
  c.epochs = epochs;
  c.epsilon = epsilon;
  c.delta = delta;
  for (int k = 0; k < classes; ++k) c.classes.push_back("c" + std::to_string(k));
  return c;
}

double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

// ---- SCS13 -------------------------------------------------------------------

TEST(Scs13Plan, PureEpsilonIsL2LaplaceWithScaleDeltaKOverEpsilon) {
  // m = 1000, b = 10, k = 3 passes, eps = 1, ||x|| <= 1: Delta = 2 L_x = 2,
  // per pass eps/k = 1/3, scale = Delta / (eps/k) = 6 (density exp(-||z||/6)).
  const TrainingPlan p = Scs13().plan(config("scs13", 1000, 3, 10, 3, 1.0, std::nullopt));
  EXPECT_EQ(p.epoch.noise, privacy::BatchNoiseKind::L2Laplace);
  EXPECT_DOUBLE_EQ(p.epoch.noise_scale, 6.0);
  EXPECT_DOUBLE_EQ(p.privacy["sensitivity"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(*p.epsilon, 1.0);
  EXPECT_DOUBLE_EQ(*p.delta, 0.0);
  EXPECT_FALSE(p.epoch.sampled_batches);
  // delta = 0 is pure epsilon-DP as well.
  EXPECT_DOUBLE_EQ(Scs13().plan(config("scs13", 1000, 3, 10, 3, 1.0, 0.0)).epoch.noise_scale, 6.0);
}

// An extreme epsilon leaves a finite scale that no sampler can draw without overflow: refused by
// the plan, before the charge (before: accepted, the first batch failed; hostile review).
// Delta = 2, k = 3: scale = 6 / eps; eps = 6e-306 gives 1e306 > DBL_MAX / (256 * 4) = 1.8e305.
TEST(Scs13Plan, RefusesAScaleThatCannotBeDrawn) {
  try {
    Scs13().plan(config("scs13", 1000, 3, 10, 3, 6e-306, std::nullopt));
    ADD_FAILURE() << "accepted a noise scale of 1e306";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
  }
  EXPECT_NEAR(Scs13().plan(config("scs13", 1000, 3, 10, 3, 6e-303, std::nullopt)).epoch.noise_scale / 1e303, 1.0,
              1e-12);
}

TEST(Scs13Plan, FeatureBoundAndOneVsAllScaleTheSensitivity) {
  // feature_bound 0.5: Delta = 2 * 0.5 = 1, scale = 1 / (2/4) = 2.
  TrainingConfig c = config("scs13", 1000, 3, 10, 4, 2.0, std::nullopt);
  c.feature_bound = 0.5;
  EXPECT_DOUBLE_EQ(Scs13().plan(c).epoch.noise_scale, 2.0);
  // K = 10 one-vs-all models, one joint mechanism on the 10 d-vector:
  // Delta = 2 sqrt(10) = 6.32455532; m = 60000, k = 10, eps = 1: scale = 63.2455532.
  const TrainingPlan p = Scs13().plan(config("scs13", 60000, 50, 50, 10, 1.0, std::nullopt, 10));
  EXPECT_NEAR(p.epoch.noise_scale, 63.2455532, 1e-6);
}

TEST(Scs13Plan, GaussianPerPassBudgets) {
  // m = 1000, b = 10, k = 3, eps = 1, delta = 1e-6: per pass (1/3, 3.333e-7), Delta = 2.
  // Classic (Dwork-Roth A.1): sigma = 2 sqrt(2 ln(1.25 / 3.3333e-7)) / (1/3)
  //   = 6 sqrt(2 ln 3.75e6) = 6 sqrt(2 * 15.137340) = 6 * 5.5022433 = 33.013460 (mpmath: 33.013378813).
  TrainingConfig c = config("scs13", 1000, 3, 10, 3, 1.0, 1e-6);
  c.options = {{"gaussian_calibration", "classic"}};
  TrainingPlan p = Scs13().plan(c);
  EXPECT_EQ(p.epoch.noise, privacy::BatchNoiseKind::Gaussian);
  EXPECT_LT(rel(p.epoch.noise_scale, 33.013378813), 1e-9);
  // Analytic (default): 24.9424574019.
  c.options = nlohmann::json::object();
  p = Scs13().plan(c);
  EXPECT_LT(rel(p.epoch.noise_scale, 24.9424574019), 1e-9);
  EXPECT_DOUBLE_EQ(*p.delta, 1e-6);
  EXPECT_TRUE(p.warnings.empty());
  // delta >= 1/n is allowed but warned about (as for bolton), for both algorithms.
  c.delta = 0.002;
  EXPECT_EQ(Scs13().plan(c).warnings.size(), 1u);
  c.algorithm = "bst14";
  c.lambda = 0.1;
  EXPECT_EQ(Bst14().plan(c).warnings.size(), 1u);
}

TEST(Scs13Plan, MnistLikeVectorsBasicAndRdp) {
  // m = 60000, b = 50, k = 10, eps = 1, delta = 1/m^2 = 2.7778e-10: per pass
  // (0.1, 2.7778e-11). Classic: 2 sqrt(2 ln(1.25 / 2.7778e-11)) / 0.1 = 20 sqrt(2 ln 4.5e10)
  //   = 20 sqrt(2 * 24.530117) = 20 * 7.0042 = 140.085 (mpmath 140.085483407).
  const double m = 60000;
  TrainingConfig c = config("scs13", 60000, 50, 50, 10, 1.0, 1 / (m * m));
  c.options = {{"gaussian_calibration", "classic"}};
  EXPECT_LT(rel(Scs13().plan(c).epoch.noise_scale, 140.085483407), 1e-9);
  c.options = nlohmann::json::object();
  EXPECT_LT(rel(Scs13().plan(c).epoch.noise_scale, 112.653938844), 1e-9);
  // RDP over the 10 passes (q = 1: RDP(alpha) = 10 alpha / (2 z^2)), improved
  // conversion on the accountant's default orders: z = 18.9261130728, sigma = 2z.
  c.options = {{"accountant", "rdp"}};
  const TrainingPlan p = Scs13().plan(c);
  EXPECT_LT(rel(p.epoch.noise_scale, 37.8522261457), 1e-8);
  EXPECT_LE(p.privacy["rdp_epsilon"].get<double>(), 1.0);
}

TEST(Scs13Plan, StepsAndProjection) {
  // Convex: eta_t = 1/sqrt(t), no projection unless asked.
  TrainingPlan p = Scs13().plan(config("scs13", 1000, 3, 10, 3, 1.0, std::nullopt));
  EXPECT_EQ(p.epoch.schedule.kind, ScheduleKind::InverseSqrt);
  EXPECT_DOUBLE_EQ(p.epoch.schedule.eta, 1.0);
  EXPECT_EQ(p.epoch.radius, 0.0);
  // Strongly convex: min(1/beta, 1/(gamma t)), projection onto R = 1/lambda.
  TrainingConfig c = config("scs13", 1000, 3, 10, 3, 1.0, std::nullopt);
  c.lambda = 0.01;
  p = Scs13().plan(c);
  EXPECT_EQ(p.epoch.schedule.kind, ScheduleKind::StronglyConvex);
  EXPECT_DOUBLE_EQ(p.epoch.radius, 100.0);
  EXPECT_DOUBLE_EQ(p.epoch.schedule.gamma, 0.01);
  EXPECT_DOUBLE_EQ(p.epoch.schedule.at(1000), 0.1);  // 1 / (0.01 * 1000)
  // The regularizer is outside the noisy sum: the noise does not change with lambda.
  EXPECT_DOUBLE_EQ(p.epoch.noise_scale, 6.0);
}

TEST(Scs13Plan, ErrorPaths) {
  TrainingConfig c = config("scs13", 1000, 3, 10, 3, 1.0, std::nullopt);
  c.epsilon.reset();
  EXPECT_THROW(Scs13().plan(c), Error);  // private only
  c = config("scs13", 1000, 3, 10, 3, 1.0, std::nullopt);
  c.options = {{"gaussian_calibration", "classic"}};
  EXPECT_THROW(Scs13().plan(c), Error);  // calibration needs delta > 0
  c = config("scs13", 1000, 3, 10, 1, 3.0, 1e-6);
  c.options = {{"gaussian_calibration", "classic"}};
  EXPECT_THROW(Scs13().plan(c), Error);  // classic Gaussian needs eps/k < 1 (trap T6)
  c.options = {{"accountant", "moments"}};
  EXPECT_THROW(Scs13().plan(c), Error);
  c.options = {{"acountant", "rdp"}};
  EXPECT_THROW(Scs13().plan(c), Error);  // typo: unknown option
  c.options = {{"accountant", 3}};
  EXPECT_THROW(Scs13().plan(c), Error);
  c.options = {{"accountant", "rdp"}, {"gaussian_calibration", "classic"}};
  EXPECT_THROW(Scs13().plan(c), Error);
}

// ---- BST14 -------------------------------------------------------------------

TEST(Bst14Budget, ReproducesTheHandComputedReconstruction) {
  // m = 60000, b = 50, k = 10, eps = 1, delta = 1/m^2 = 2.7778e-10:
  //   T = 10 * 1200 = 12000; delta' = delta/2 = 1.3889e-10; delta_1 = delta/(2T) = 1.1574e-14;
  //   eps_1: sqrt(2 * 12000 * ln(7.2e9)) eps_1 + 12000 eps_1 (e^eps_1 - 1) = 1
  //          (738.06 eps_1 + 12000 eps_1^2 ~ 1) => eps_1 = 1.32628e-3;
  //   q = 50/60000 = 8.3333e-4; linear: eps_0 = eps_1 / (2q) = 0.795768; delta_0 = delta_1/q = 1.38889e-11;
  //   classic: sigma = 2 sqrt(2 ln(1.25/1.38889e-11)) / 0.795768 = 2 sqrt(2 * 25.22308) / 0.795768
  //          = 2 * 7.102547 / 0.795768 = 17.8508.
  const double m = 60000;
  const Bst14Budget b = bst14_budget(60000, 50, 10, 1.0, 1 / (m * m), 2.0, privacy::GaussianCalibration::Classic,
                                     Bst14Amplification::Linear);
  EXPECT_EQ(b.updates, 12000);
  EXPECT_LT(rel(b.epsilon_step, 1.32628022901e-3), 1e-9);
  EXPECT_LT(rel(b.sampling_rate, 50.0 / 60000), 1e-15);
  EXPECT_LT(rel(b.epsilon_0, 0.795768137409), 1e-9);
  EXPECT_LT(rel(b.delta_0, 1.38888888889e-11), 1e-9);
  EXPECT_LT(rel(b.delta_step, 1.0 / (m * m) / 24000), 1e-12);
  EXPECT_LT(rel(b.sigma, 17.8507910934), 1e-9);
  EXPECT_NEAR(b.sigma / 50, 0.357016, 1e-6);  // on the averaged gradient (§13)
}

TEST(Bst14Budget, OurDefaultExactAmplificationAndAnalyticGaussian) {
  // Deviation from §13, both sound and tighter: eps_0 from the exact inverse of
  // amplification by sampling without replacement (BBG18 Thm 10),
  //   eps_0 = ln(1 + (e^eps_1 - 1)/q) = ln(1 + 1.3271601e-3 * 1200) = ln 2.5925921 = 0.952658,
  // and the analytic Gaussian: sigma = 12.9341819702 (classic would give 14.9110044739).
  const double m = 60000;
  Bst14Budget b = bst14_budget(60000, 50, 10, 1.0, 1 / (m * m), 2.0, privacy::GaussianCalibration::Analytic,
                               Bst14Amplification::Exact);
  EXPECT_LT(rel(b.epsilon_0, 0.95265820653), 1e-9);
  EXPECT_LT(rel(b.sigma, 12.9341819702), 1e-9);
  b = bst14_budget(60000, 50, 10, 1.0, 1 / (m * m), 2.0, privacy::GaussianCalibration::Classic,
                   Bst14Amplification::Exact);
  EXPECT_LT(rel(b.sigma, 14.9110044739), 1e-9);
  // The per-update guarantee after amplification is exactly eps_1 again.
  EXPECT_LT(rel(std::log1p(b.sampling_rate * std::expm1(b.epsilon_0)), b.epsilon_step), 1e-12);
}

TEST(Bst14Plan, PlanCarriesTheBudget) {
  // m = 1000, b = 10, k = 3, eps = 1, delta = 1e-6: T = 300, eps_1 = 0.0103703328909,
  // q = 0.01, eps_0 = 0.7141398423, delta_0 = 1e-6 / 600 / 0.01 = 1.6667e-7, sigma = 12.5697933713.
  TrainingConfig c = config("bst14", 1000, 3, 10, 3, 1.0, 1e-6);
  c.lambda = 0.01;
  const TrainingPlan p = Bst14().plan(c);
  EXPECT_TRUE(p.epoch.sampled_batches);
  EXPECT_EQ(p.epoch.noise, privacy::BatchNoiseKind::Gaussian);
  EXPECT_LT(rel(p.epoch.noise_scale, 12.5697933713), 1e-9);
  EXPECT_LT(rel(p.privacy["epsilon_step"].get<double>(), 0.0103703328909), 1e-9);
  EXPECT_LT(rel(p.privacy["delta_0"].get<double>(), 1.0e-6 / 6), 1e-12);
  EXPECT_EQ(p.privacy["updates"].get<std::int64_t>(), 300);
  EXPECT_EQ(p.epoch.schedule.kind, ScheduleKind::StronglyConvex);
  EXPECT_DOUBLE_EQ(p.epoch.radius, 100.0);
  EXPECT_FALSE(p.reshuffle);
  // One-vs-all, K = 10, MNIST-like: Delta = 2 sqrt(10), sigma = 40.9014746969.
  const double m = 60000;
  TrainingConfig k10 = config("bst14", 60000, 50, 50, 10, 1.0, 1 / (m * m), 10);
  k10.lambda = 1e-3;
  EXPECT_LT(rel(Bst14().plan(k10).epoch.noise_scale, 40.9014746969), 1e-9);
}

TEST(Bst14Plan, ConvexStepSizeFromTheRadiusAndG) {
  // Convex, d = 50, R = 1, MNIST-like budget (sigma = 12.9341819702):
  //   G = sqrt(L_x^2 + d sigma^2 / b^2) = sqrt(1 + 50 * 167.2930 / 2500) = sqrt(4.345860) = 2.0846729;
  //   eta_t = 2R / (G sqrt t): eta = 0.9593831.
  const double m = 60000;
  TrainingConfig c = config("bst14", 60000, 50, 50, 10, 1.0, 1 / (m * m));
  c.radius = 1.0;
  const TrainingPlan p = Bst14().plan(c);
  EXPECT_EQ(p.epoch.schedule.kind, ScheduleKind::InverseSqrt);
  EXPECT_LT(rel(p.epoch.schedule.eta, 0.95938310614), 1e-9);
  EXPECT_LT(rel(p.privacy["gradient_bound_G"].get<double>(), 2.08467293952), 1e-9);
  EXPECT_DOUBLE_EQ(p.epoch.radius, 1.0);
  // learning_rate overrides the step (privacy does not depend on it).
  c.learning_rate = 0.1;
  EXPECT_DOUBLE_EQ(Bst14().plan(c).epoch.schedule.eta, 0.1);
}

TEST(Bst14Plan, ErrorPaths) {
  TrainingConfig c = config("bst14", 1000, 3, 10, 3, 1.0, std::nullopt);
  c.lambda = 0.01;
  EXPECT_THROW(Bst14().plan(c), Error);  // delta NULL
  c.delta = 0.0;
  EXPECT_THROW(Bst14().plan(c), Error);  // delta 0: no pure-DP variant
  c.delta = 1e-6;
  c.epsilon.reset();
  EXPECT_THROW(Bst14().plan(c), Error);
  c.epsilon = 1.0;
  c.reshuffle = true;
  EXPECT_THROW(Bst14().plan(c), Error);
  c.reshuffle = false;
  c.options = {{"amplification", "quadratic"}};
  EXPECT_THROW(Bst14().plan(c), Error);
  c.options = {{"accountant", "rdp"}};
  EXPECT_THROW(Bst14().plan(c), Error);  // not an option of bst14
  c.options = nlohmann::json::object();
  c.lambda = 0;
  EXPECT_THROW(Bst14().plan(c), Error);  // convex needs a radius
  c.radius = 2.0;
  EXPECT_NO_THROW(Bst14().plan(c));
}

// ---- the run and the passes it asks for ----------------------------------------

TEST(WhiteBoxRun, KeyPerRunSeededOnlyWithASeed) {
  TrainingConfig c = config("scs13", 100, 3, 10, 2, 1.0, std::nullopt);
  const std::vector<double> a = EpochRun(c).epoch_input(), b = EpochRun(c).epoch_input();
  EXPECT_NE(a, b);  // fresh secure keys
  EXPECT_EQ(a[epoch_state::kNoiseSeeded], 0.0);
  c.seed = 5;
  const std::vector<double> s1 = EpochRun(c).epoch_input(), s2 = EpochRun(c).epoch_input();
  EXPECT_EQ(s1, s2);  // reproducible
  EXPECT_EQ(s1[epoch_state::kNoiseSeeded], 1.0);
  c.seed = 6;
  EXPECT_NE(EpochRun(c).epoch_input(), s1);
  // Noiseless runs carry no key.
  TrainingConfig none = config("none", 100, 3, 10, 2, 1.0, std::nullopt);
  none.epsilon.reset();
  const std::vector<double> n = EpochRun(none).epoch_input();
  for (int f = epoch_state::kNoiseFirst; f < epoch_state::kHeaderSize; ++f) EXPECT_EQ(n[f], 0.0);
}

TEST(WhiteBoxRun, SampledEpochsSeeFullBatches) {
  TrainingConfig c = config("bst14", 1001, 3, 10, 2, 1.0, 1e-6);
  c.lambda = 0.1;
  EpochRun t(c);
  EXPECT_EQ(t.rows_per_epoch(), 1010);  // 101 batches of 10
  std::optional<Pass> p = t.next();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, PassKind::SampledEpoch);
  EXPECT_EQ(p->rows, 1001);
  TrainingConfig s = config("scs13", 1001, 3, 10, 2, 1.0, std::nullopt);
  EpochRun ts(s);
  EXPECT_EQ(ts.rows_per_epoch(), 1001);
  EXPECT_EQ(ts.next()->kind, PassKind::SgdEpoch);
}

TEST(WhiteBoxRun, MetadataNeverHoldsTheKey) {
  TrainingConfig c = config("scs13", 100, 3, 10, 1, 1.0, std::nullopt);
  c.seed = 9;
  EpochRun t(c);
  const std::vector<double> in = t.next()->input;
  std::vector<double> out = in;
  // Pretend the epoch ran: all rows, ceil(100/10) updates.
  out[epoch_state::kRows] = 100;
  out[epoch_state::kUpdates] = 10;
  t.accept(out.data(), out.size());
  ASSERT_FALSE(t.next());
  const Model m = t.release(0.0);
  const std::string json = m.to_json().dump();
  for (int i = 0; i < 8; ++i) {
    const auto word = static_cast<std::uint64_t>(in[epoch_state::kNoiseKey + i]);
    if (word > 999) {
      EXPECT_EQ(json.find(std::to_string(word)), std::string::npos) << word;
    }
  }
  EXPECT_TRUE(m.seeded);
  EXPECT_EQ(m.algorithm, "scs13");
}

TEST(WhiteBoxRun, EpochOutputChecksRowsAndUpdates) {
  TrainingConfig c = config("scs13", 100, 3, 10, 2, 1.0, std::nullopt);
  EpochRun t(c), u(c);
  std::vector<double> out = t.next()->input;
  out[epoch_state::kRows] = 100;
  out[epoch_state::kUpdates] = 9;  // one update short
  EXPECT_THROW(t.accept(out.data(), out.size()), Error);
  out = u.next()->input;
  out[epoch_state::kRows] = 100;
  out[epoch_state::kUpdates] = 10;
  out[epoch_state::kNoiseKey] += 1;  // another key: another run
  EXPECT_THROW(u.accept(out.data(), out.size()), Error);
}

}  // namespace
}  // namespace dptrain
