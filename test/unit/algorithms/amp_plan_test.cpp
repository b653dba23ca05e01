// AMP's constants (Iyengar et al., S&P 2019, Algorithm 1 and Sec. V-A),
// each pinned to a value computed by hand from the formulas.
#include <gtest/gtest.h>

#include <cmath>

#include "core/algorithms/amp_plan.h"
#include "core/error.h"
#include "core/privacy/random_source.h"

namespace dptrain {
namespace {

using amp::AmpPlan;

// The reference setting: n = 45220 (the paper's Adult), eps = 0.1,
// delta = 1/n^2, f = 0.01, f1 = 0.9, L = 1, r = 2, beta = 1, gamma = 1/n^2.
//   eps2 = 0.001, eps1 = 0.099, eps3 = 0.9 * 0.099 = 0.0891,
//   delta2 = 0.01/n^2, delta1 = 0.99/n^2.
constexpr double kN = 45220;
constexpr double kDelta = 1.0 / (kN * kN);

TrainingConfig reference_config() {
  TrainingConfig c;
  c.algorithm = "amp";
  c.epsilon = 0.1;
  c.delta = kDelta;
  c.rows = static_cast<std::int64_t>(kN);
  c.dim = 104;
  c.classes = {"<=50K", ">50K"};
  c.options = {{"f", 0.01}, {"f1", 0.9}};
  return c;
}

TEST(AmpFormulas, RegularizationAlgorithm1Step2) {
  // Lambda = r beta / (eps1 - eps3) = 2 * 1 / (0.099 - 0.0891) = 2 / 0.0099 = 202.0202...
  EXPECT_NEAR(amp::minimum_regularization(2, 1.0, 0.099, 0.0891), 202.020202, 1e-5);
  // Huber, h = 0.1: beta = L^2/(2h) = 5, so Lambda = 10 / 0.0099 = 1010.10101...
  EXPECT_NEAR(amp::minimum_regularization(2, 5.0, 0.099, 0.0891), 1010.10101, 1e-4);
}

TEST(AmpFormulas, RegularizationNeedsEps1AboveEps3) {
  EXPECT_THROW(amp::minimum_regularization(2, 1.0, 0.1, 0.1), Error);
  EXPECT_THROW(amp::minimum_regularization(2, 1.0, 0.1, 0.2), Error);
}

TEST(AmpFormulas, ObjectiveNoiseLemmaIV1WithLemmaIII1Constant) {
  // sigma1 = (2L/n)(1 + sqrt(2 ln(1/delta1))) / eps3
  //   ln(1/delta1) = 2 ln 45220 - ln 0.99 = 21.43869 + 0.01005 = 21.44874
  //   1 + sqrt(42.89748) = 1 + 6.54962 = 7.54962
  //   (2/45220) * 7.54962 / 0.0891 = 4.42282e-5 * 84.7320 = 3.74754e-3
  EXPECT_NEAR(amp::objective_noise_sigma(1.0, 45220, 0.0891, 0.99 * kDelta), 3.74754e-3, 5e-9);
  // Linear in L (the sensitivity 2L/n).
  EXPECT_NEAR(amp::objective_noise_sigma(10.0, 45220, 0.0891, 0.99 * kDelta), 3.74754e-2, 5e-8);
}

TEST(AmpFormulas, OutputNoiseUsesTheCorrectedSensitivity) {
  // sigma2 = (2 n gamma / Lambda)(1 + sqrt(2 ln(1/delta2))) / eps2, gamma = 1/n^2:
  //   2 n gamma / Lambda = 2 / (45220 * 202.0202) = 2.18931e-7
  //   ln(1/delta2) = 21.43869 + ln 100 = 26.04386; 1 + sqrt(52.08772) = 8.21718
  //   2.18931e-7 * 8.21718 / 0.001 = 1.79898e-3
  const double lambda = 2.0 / (0.099 - 0.0891);
  const double sigma2 = amp::output_noise_sigma(45220, kDelta, lambda, 0.001, 0.01 * kDelta);
  EXPECT_NEAR(sigma2, 1.79898e-3, 5e-9);
  // Exactly twice the paper's value n gamma / Lambda * ... = 8.99491e-4.
  EXPECT_NEAR(sigma2 / 2, 8.99491e-4, 5e-10);
}

TEST(AmpFormulas, HyperparameterFreeF1SectionVA) {
  // Low-dimensional fit at eps1 = 0.099:
  //   0.099^-0.373 = exp(0.373 * 2.312635) = exp(0.862613) = 2.369363
  //   0.887 + 0.019 * 2.369363 = 0.887 + 0.045018 = 0.932018 (> 1 - 0.99/0.099 = -9)
  EXPECT_NEAR(amp::hyperparameter_free_f1(0.099, false), 0.932018, 5e-7);
  // eps1 = 9.99: the fit gives 0.887 + 0.019 * 9.99^-0.373 = 0.887 + 0.019 * 0.42365 = 0.89505,
  // the theorem floor 1 - 0.99/9.99 = 0.900901 wins.
  EXPECT_NEAR(amp::hyperparameter_free_f1(9.99, false), 1 - 0.99 / 9.99, 1e-15);
  // eps1 = 0.0099: the fit exceeds 0.99 (0.887 + 0.019 * 5.5973 = 0.99335), capped at 0.99.
  EXPECT_DOUBLE_EQ(amp::hyperparameter_free_f1(0.0099, false), 0.99);
  // High-dimensional: 0.97 unless the floor is higher (eps1 = 99: 1 - 0.01 = 0.99).
  EXPECT_DOUBLE_EQ(amp::hyperparameter_free_f1(0.099, true), 0.97);
  EXPECT_NEAR(amp::hyperparameter_free_f1(99, true), 0.99, 1e-15);
}

TEST(AmpFormulas, DimensionRegime) {
  EXPECT_FALSE(amp::is_high_dimensional(104, 36176));
  EXPECT_FALSE(amp::is_high_dimensional(99, 1000));
  EXPECT_TRUE(amp::is_high_dimensional(100, 1000));  // p >= n/10
  EXPECT_TRUE(amp::is_high_dimensional(5000, 6000));
}

TEST(AmpFormulas, Smoothness) {
  EXPECT_DOUBLE_EQ(amp::loss_smoothness(LossKind::Logistic, 1.0, 0.1), 1.0);  // L^2
  EXPECT_DOUBLE_EQ(amp::loss_smoothness(LossKind::Logistic, 10.0, 0.1), 100.0);
  EXPECT_DOUBLE_EQ(amp::loss_smoothness(LossKind::HuberSvm, 1.0, 0.1), 5.0);  // L^2/(2h)
  EXPECT_DOUBLE_EQ(amp::loss_smoothness(LossKind::HuberSvm, 2.0, 0.5), 4.0);
}

TEST(AmpPlan, ReferenceVector) {
  const AmpPlan p = amp::make_plan(reference_config());
  EXPECT_FALSE(p.hyperparameter_free);
  EXPECT_EQ(p.models, 1);
  EXPECT_NEAR(p.eps2, 0.001, 1e-17);
  EXPECT_NEAR(p.eps1, 0.099, 1e-16);
  EXPECT_NEAR(p.eps3, 0.0891, 1e-16);
  EXPECT_NEAR(p.delta2, 0.01 * kDelta, 1e-25);
  EXPECT_NEAR(p.delta1, 0.99 * kDelta, 1e-24);
  EXPECT_DOUBLE_EQ(p.lipschitz, 1.0);
  EXPECT_DOUBLE_EQ(p.smoothness, 1.0);
  EXPECT_EQ(p.rank_bound, 2);
  EXPECT_DOUBLE_EQ(p.gamma, kDelta);  // 1/n^2
  EXPECT_NEAR(p.regularization, 202.020202, 1e-5);
  EXPECT_DOUBLE_EQ(p.regularization, p.minimum_regularization);
  EXPECT_NEAR(p.l2_coefficient(), 202.020202 / kN, 1e-9);
  EXPECT_NEAR(p.sigma1, 3.74754e-3, 5e-9);
  EXPECT_NEAR(p.sigma2, 1.79898e-3, 5e-9);
  EXPECT_TRUE(p.theorem_covers_loss);
  EXPECT_EQ(p.solver.method, optim::Method::Newton);  // d = 104 <= 300

  const nlohmann::json j = p.privacy_json();
  EXPECT_EQ(j.at("variant"), "tuned");
  EXPECT_EQ(j.at("f1_rule"), "given");
  EXPECT_NEAR(j.at("output_noise").at("sigma").get<double>(), 1.79898e-3, 5e-9);
  EXPECT_NEAR(j.at("output_noise").at("sensitivity").get<double>(), 2.18931e-7, 5e-12);
  EXPECT_NEAR(j.at("objective_noise").at("sensitivity").get<double>(), 2 / kN, 1e-15);
}

// epsilon = 1e-50 made b1 so large that the line search found no descent
// direction (XX000) after the charge; refused by the plan.
TEST(AmpPlan, RefusesAnObjectiveNoiseBeyondDoublePrecision) {
  TrainingConfig c = reference_config();
  c.epsilon = 1e-50;
  try {
    amp::make_plan(c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("drowns its gradient bound gamma"), std::string::npos);
  }
  // The same for a gamma far below the rounding of an ordinary objective noise.
  c = reference_config();
  c.options["gamma"] = 1e-300;
  EXPECT_THROW(amp::make_plan(c), Error);
}

// sigma2 is linear in gamma (sensitivity 2 n gamma / Lambda): 1.79898e-3 at gamma = 1/n^2 =
// 4.89e-10, so 3.679e6 gamma. A finite sigma above DBL_MAX/16 = 1.12356e307 could draw inf
// (samplers.h): gamma = 1e300 (sigma2 3.68e306) plans, 1e301 (3.68e307) is refused by the
// plan, before the ledger charge; before, it planned and failed at the release.
TEST(AmpPlan, RefusesAnOutputNoiseNoSamplerCanDraw) {
  TrainingConfig c = reference_config();
  c.options["gamma"] = 1e300;
  EXPECT_NEAR(amp::make_plan(c).sigma2, 3.679e306, 1e303);
  c.options["gamma"] = 1e301;
  try {
    amp::make_plan(c);
    FAIL() << "planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("AMP's output noise is too large to draw"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("options.gamma"), std::string::npos);
  }
}

// Lemma IV.1 needs b1's density ratio <= e^eps3 with probability >= 1 - delta1, the tail bound of
// Lemma III.1's sigma, which fails at large eps3 (gaussian_calibration_test): the objective noise of
// a large budget was too small. Hyperparameter-free, delta = 1e-5:
//   eps = 30: eps2 = 0.3, eps1 = 29.7, f1 = max(min(0.887 + 0.019 * 29.7^-0.373, 0.99), 1 - 0.99/29.7)
//      = max(0.892363, 0.966667) = 0.966667, eps3 = 28.71, delta1 = 0.99e-5;
//      sigma1 / (2L/n) = (1 + sqrt(2 ln(1/0.99e-5))) / 28.71 = (1 + 4.800620) / 28.71 = 0.2020418;
//      P(loss > eps3) = 44.51 delta1 (mpmath), even the exact delta (Balle & Wang) is 25.49 delta1;
//   eps = 20: f1 = max(0.893239, 1 - 0.99/19.8 = 0.95) = 0.95, eps3 = 18.81: P = 1.477 delta1
//      (the exact delta 0.617 delta1 would pass, Lemma IV.1's tail bound does not).
// Refused by the plan, before the charge. eps = 18 (eps3 = 16.83: 0.688 delta1) and the paper's
// eps = 10 (eps3 = 8.91: 0.0244 delta1) plan.
TEST(AmpPlan, RefusesABudgetWhereLemmaIII1DoesNotHold) {
  TrainingConfig c = reference_config();
  c.options = nlohmann::json::object();
  c.delta = 1e-5;
  for (double eps : {30.0, 20.0}) {
    c.epsilon = eps;
    try {
      amp::make_plan(c);
      ADD_FAILURE() << "planned eps = " << eps;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
      EXPECT_NE(std::string(e.what()).find("Lemma III.1"), std::string::npos) << e.what();
      EXPECT_NE(e.hint().find("smaller epsilon"), std::string::npos) << e.hint();
    }
  }
  for (double eps : {10.0, 18.0}) {
    c.epsilon = eps;
    EXPECT_NO_THROW(amp::make_plan(c)) << eps;
  }
  // eps = 18: f1 = max(0.893489, 1 - 0.99/17.82 = 0.944444), eps3 = 16.83;
  // sigma1 = (2/45220) * (1 + 4.800620) / 16.83 = 4.422822e-5 * 5.800620 / 16.83 = 1.524368e-5.
  c.epsilon = 18.0;
  EXPECT_NEAR(amp::make_plan(c).sigma1 / 1.524368e-5, 1.0, 1e-6);
}

TEST(AmpPlan, HyperparameterFreeIsTheDefault) {
  TrainingConfig c = reference_config();
  c.options = nlohmann::json::object();
  const AmpPlan p = amp::make_plan(c);
  EXPECT_TRUE(p.hyperparameter_free);
  EXPECT_DOUBLE_EQ(p.f, 0.01);
  EXPECT_DOUBLE_EQ(p.lipschitz, 1.0);
  EXPECT_DOUBLE_EQ(p.gamma, 1 / (kN * kN));
  EXPECT_NEAR(p.f1, 0.932018, 5e-7);  // eps1 = 0.099, p = 104 < n/10
  EXPECT_EQ(p.privacy_json().at("f1_rule"), "Sec. V-A low-dimensional fit (p < n/10)");
  // Lambda = 2 / (0.099 (1 - 0.9320175)) = 2 / 0.00673026 = 297.1651 (n plays no role)
  EXPECT_NEAR(p.regularization, 297.1651, 1e-3);
}

TEST(AmpPlan, OneVsAllSplitsTheBudget) {
  TrainingConfig c = reference_config();
  c.options = nlohmann::json::object();
  c.classes = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
  const AmpPlan p = amp::make_plan(c);
  EXPECT_EQ(p.models, 10);
  EXPECT_NEAR(p.model_epsilon, 0.01, 1e-17);
  EXPECT_NEAR(p.model_delta, kDelta / 10, 1e-26);
  // eps1 = 0.99 * 0.01 = 0.0099: Sec. V-A's fit is capped at f1 = 0.99.
  EXPECT_NEAR(p.eps1, 0.0099, 1e-17);
  EXPECT_DOUBLE_EQ(p.f1, 0.99);
  EXPECT_DOUBLE_EQ(p.epsilon, 0.1);  // the total, recorded as spent
}

TEST(AmpPlan, HighDimensionalFit) {
  TrainingConfig c = reference_config();
  c.options = nlohmann::json::object();
  c.rows = 6000;
  c.dim = 5000;
  c.delta = 1.0 / (6000.0 * 6000.0);
  const AmpPlan p = amp::make_plan(c);
  EXPECT_TRUE(p.high_dimensional);
  EXPECT_DOUBLE_EQ(p.f1, 0.97);
  EXPECT_EQ(p.solver.method, optim::Method::Lbfgs);  // d > 300
}

TEST(AmpPlan, HuberIsRecordedAsOutsideTheTheorem) {
  TrainingConfig c = reference_config();
  c.loss = "huber_svm";
  const AmpPlan p = amp::make_plan(c);
  EXPECT_DOUBLE_EQ(p.smoothness, 5.0);
  EXPECT_NEAR(p.regularization, 1010.10101, 1e-4);
  EXPECT_FALSE(p.theorem_covers_loss);
  EXPECT_FALSE(p.privacy_json().at("theorem_covers_loss").get<bool>());
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings.back().find("discontinuous"), std::string::npos);
}

TEST(AmpPlan, TunedOptionsAndLambda) {
  TrainingConfig c = reference_config();
  c.options = {{"f", 0.1}, {"f1", 0.95}, {"L", 10.0}, {"gamma", 1e-6}};
  c.lambda = 1e-3;
  const AmpPlan p = amp::make_plan(c);
  // eps2 = 0.01, eps1 = 0.09, eps3 = 0.0855; beta = L^2 = 100;
  // Lambda_min = 200 / 0.0045 = 44444.44; Lambda = 44444.44 + n lambda = 44444.44 + 45.22
  EXPECT_NEAR(p.eps3, 0.0855, 1e-15);
  EXPECT_NEAR(p.minimum_regularization, 44444.4444, 1e-3);
  EXPECT_NEAR(p.regularization, 44444.4444 + 45.22, 1e-3);
  // sigma1 = (20/n)(1 + sqrt(2 ln(1/(0.9 delta)))) / 0.0855
  EXPECT_NEAR(p.sigma1, 20 / kN * (1 + std::sqrt(2 * std::log(1 / (0.9 * kDelta)))) / 0.0855, 1e-15);
  // sigma2 with the Lambda actually used (the strong convexity of L_priv)
  EXPECT_NEAR(p.sigma2, 2 * kN * 1e-6 / p.regularization * (1 + std::sqrt(2 * std::log(1 / (0.1 * kDelta)))) / 0.01,
              1e-15);
  EXPECT_FALSE(p.hyperparameter_free);
}

void expect_invalid(const TrainingConfig& c, const std::string& fragment) {
  try {
    amp::make_plan(c);
    ADD_FAILURE() << "no error; expected one mentioning " << fragment;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(AmpPlan, RefusesWhatItCannotGuarantee) {
  TrainingConfig c = reference_config();
  c.delta.reset();
  expect_invalid(c, "delta > 0");
  c.delta = 0.0;
  expect_invalid(c, "delta > 0");
  c = reference_config();
  c.epsilon.reset();
  expect_invalid(c, "epsilon");
  c = reference_config();
  c.options["f1"] = 1.0;
  expect_invalid(c, "options.f1");
  c.options["f1"] = 0.0;
  expect_invalid(c, "options.f1");
  c = reference_config();
  c.options["f"] = 1.5;
  expect_invalid(c, "options.f");
  c = reference_config();
  c.options["gamma"] = 0.0;
  expect_invalid(c, "options.gamma");
  c = reference_config();
  c.options["L"] = "one";
  expect_invalid(c, "options.L");
  c = reference_config();
  c.options["lambda"] = 0.1;
  expect_invalid(c, "unknown option");
  c = reference_config();
  c.learning_rate = 0.1;
  expect_invalid(c, "learning_rate");
  c = reference_config();
  c.options["optimizer"] = "bfgs";
  expect_invalid(c, "options.optimizer");
}

TEST(AmpPlan, SmallTablesAreNotRefusedForTheBatchSize) {
  TrainingConfig c = reference_config();
  c.rows = 20;  // below the default batch_size 50, which AMP does not use
  c.delta = 1.0 / 400;
  EXPECT_NO_THROW(amp::make_plan(c));
}

TEST(AmpPlan, WarnsWhenDeltaIsNotSmall) {
  TrainingConfig c = reference_config();
  c.delta = 1e-3;  // > 1/n
  const AmpPlan p = amp::make_plan(c);
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings[0].find("1/n"), std::string::npos);
}

TEST(AmpNoise, ObjectiveNoiseHasTheScaleOfTheBudget) {
  TrainingConfig c = reference_config();
  c.classes = {"a", "b", "c"};
  const AmpPlan p = amp::make_plan(c);
  auto rng = privacy::RandomSource::seeded(7);
  const WeightMatrix b1 = amp::draw_objective_noise(p, rng);
  ASSERT_EQ(b1.rows(), 3);
  ASSERT_EQ(b1.cols(), 104);
  // 312 N(0, sigma1^2) values: the sample variance is within 4 standard errors
  // (sd of s^2/sigma^2 is sqrt(2/312) = 0.080) of 1.
  const double ratio = b1.squaredNorm() / b1.size() / (p.sigma1 * p.sigma1);
  EXPECT_NEAR(ratio, 1.0, 4 * std::sqrt(2.0 / 312));

  WeightMatrix w = WeightMatrix::Zero(3, 104);
  amp::add_output_noise(p, w, rng);
  const double ratio2 = w.squaredNorm() / w.size() / (p.sigma2 * p.sigma2);
  EXPECT_NEAR(ratio2, 1.0, 4 * std::sqrt(2.0 / 312));
  // The two draws are independent streams of one source: not equal.
  EXPECT_GT((w / p.sigma2 - b1 / p.sigma1).norm(), 1.0);
}

}  // namespace
}  // namespace dptrain
