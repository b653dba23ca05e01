// algorithm => 'bolton': the plan (schedule, projection, sensitivity, noise,
// budget split, metadata) from public inputs, and its error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/algorithms/bolton.h"
#include "core/error.h"
#include "core/privacy/gaussian_calibration.h"

namespace dptrain {
namespace {

// MNIST-like public facts: m = 60000, d = 50, binary unless told otherwise.
TrainingConfig mnist_like(int classes = 2) {
  TrainingConfig c;
  c.algorithm = "bolton";
  c.rows = 60000;
  c.dim = 50;
  for (int i = 0; i < classes; ++i) c.classes.push_back(std::to_string(i));
  c.epochs = 10;
  c.batch_size = 50;
  c.epsilon = 0.5;
  return c;
}

std::string error_of(const TrainingConfig& c) {
  try {
    Bolton().plan(c);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter) << e.what();
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// lambda = 1e308 made the output noise scale underflow to 0: the run trained
// every epoch and then failed at the release as XX000 "invalid bolton noise
// scale". Refused by the plan, before anything is read.
TEST(BoltonPlan, RefusesANoiseScaleThatIsNotPositiveAndFinite) {
  TrainingConfig c = mnist_like();
  c.lambda = 1e308;
  EXPECT_EQ(error_of(c), "the output noise scale of bolton is not a positive finite number");
}

// A finite scale whose draws could round to inf (Gamma(d, scale) norm above DBL_MAX): refused by the
// plan (samplers.h bound 256 (d + 1) scales), before the charge; before, the plan accepted it and
// the release failed after every epoch (hostile review).
TEST(BoltonPlan, RefusesAFiniteScaleThatCannotBeDrawn) {
  // Delta = 1.63299e-3 (above); the smallest normal epsilon, 2.2250738585072014e-308, gives
  // scale 7.339e304 > DBL_MAX / (256 * 51) = 1.377e304.
  TrainingConfig c = mnist_like();
  c.epsilon = std::numeric_limits<double>::min();
  EXPECT_TRUE(contains(error_of(c), "too large")) << error_of(c);
  c.epsilon = 1e-300;  // scale 1.63299e297: drawable
  EXPECT_NEAR(Bolton().plan(c).privacy["noise"]["gamma_scale"].get<double>(), 1.63299e297, 1e292);
}

TEST(BoltonPlan, ConvexPureEpsilonUsesCorollaryOneAndL2Laplace) {
  const TrainingPlan p = Bolton().plan(mnist_like());
  EXPECT_EQ(p.epochs, 10);
  EXPECT_EQ(p.epoch.schedule.kind, ScheduleKind::Constant);
  EXPECT_DOUBLE_EQ(p.epoch.schedule.eta, 1.0 / std::sqrt(60000.0));  // paper default 1/sqrt(m)
  EXPECT_EQ(p.epoch.radius, 0.0);                                     // no projection needed (convex)
  EXPECT_EQ(p.epoch.lambda, 0.0);
  // Delta = 2 k L eta / b = 2 * 10 * 1 * (1/sqrt(60000)) / 50 = 1.63299e-3 (Wu et al. 2017, Thm 1)
  EXPECT_NEAR(p.privacy["sensitivity"].get<double>(), 1.63299e-3, 1e-8);
  EXPECT_EQ(p.privacy["notion"], "epsilon-DP");
  EXPECT_EQ(p.privacy["convexity"], "convex");
  EXPECT_EQ(p.privacy["noise"]["distribution"], "l2_laplace");
  // Gamma scale Delta / eps = 1.63299e-3 / 0.5 = 3.26599e-3; E||v|| = d * scale = 0.163299
  EXPECT_NEAR(p.privacy["noise"]["gamma_scale"].get<double>(), 3.26599e-3, 1e-8);
  EXPECT_NEAR(p.privacy["noise"]["expected_norm"].get<double>(), 0.163299, 1e-6);
  EXPECT_EQ(*p.epsilon, 0.5);
  EXPECT_EQ(*p.delta, 0.0);
  EXPECT_EQ(p.privacy["adjacency"].get<std::string>().rfind("replace-one", 0), 0u);
  EXPECT_TRUE(p.privacy["n_public"].get<bool>());
  EXPECT_TRUE(p.warnings.empty());
}

TEST(BoltonPlan, DeltaZeroIsPureEpsilonDp) {
  TrainingConfig c = mnist_like();
  c.delta = 0.0;
  const TrainingPlan p = Bolton().plan(c);
  EXPECT_EQ(p.privacy["noise"]["distribution"], "l2_laplace");
  EXPECT_EQ(*p.delta, 0.0);
}

TEST(BoltonPlan, EpsilonDeltaUsesTheGaussianMechanism) {
  TrainingConfig c = mnist_like();
  c.delta = 1e-5;
  c.options = {{"gaussian_calibration", "classic"}};
  TrainingPlan p = Bolton().plan(c);
  EXPECT_EQ(p.privacy["notion"], "(epsilon, delta)-DP");
  EXPECT_EQ(p.privacy["noise"]["distribution"], "gaussian");
  EXPECT_EQ(p.privacy["noise"]["calibration"], "classic");
  // sigma = Delta sqrt(2 ln(1.25/delta)) / eps = 1.632993e-3 * 4.844805 / 0.5 = 0.01582307
  EXPECT_NEAR(p.privacy["noise"]["sigma"].get<double>(), 0.0158230677, 1e-9);

  c.options = nlohmann::json::object();  // the default: analytic (Balle-Wang)
  p = Bolton().plan(c);
  EXPECT_EQ(p.privacy["noise"]["calibration"], "analytic");
  EXPECT_DOUBLE_EQ(p.privacy["noise"]["sigma"].get<double>(),
                   privacy::gaussian_sigma(p.privacy["sensitivity"].get<double>(), 0.5, 1e-5));
  EXPECT_LT(p.privacy["noise"]["sigma"].get<double>(), 0.0158230677);  // analytic is tighter than classic
}

TEST(BoltonPlan, OneVsAllSplitsTheBudgetEvenly) {
  TrainingConfig c = mnist_like(10);
  c.epsilon = 5.0;
  c.delta = 1e-5;
  c.options = {{"gaussian_calibration", "classic"}};
  const TrainingPlan p = Bolton().plan(c);
  EXPECT_EQ(p.epoch.models, 10);
  EXPECT_EQ(p.privacy["models"], 10);
  EXPECT_DOUBLE_EQ(p.privacy["per_model_epsilon"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(p.privacy["per_model_delta"].get<double>(), 1e-6);
  // Each model: Delta = 1.632993e-3 (same rows), eps 0.5, delta 1e-6:
  // sigma = 1.632993e-3 * sqrt(2 ln(1.25e6)) / 0.5 = 0.01730582
  EXPECT_NEAR(p.privacy["noise"]["sigma"].get<double>(), 0.0173058166, 1e-9);
  EXPECT_EQ(*p.epsilon, 5.0);  // the total, by basic composition
  EXPECT_EQ(*p.delta, 1e-5);
}

TEST(BoltonPlan, OneVsAllJointGaussianUsesSqrtKSensitivityAtTheFullBudget) {
  TrainingConfig c = mnist_like(10);
  c.epsilon = 0.5;
  c.delta = 1e-5;
  c.options = {{"gaussian_calibration", "classic"}, {"multiclass_noise", "joint"}};
  const TrainingPlan p = Bolton().plan(c);
  EXPECT_EQ(p.privacy["multiclass_noise"], "joint");
  EXPECT_EQ(p.epoch.models, 10);
  // Each model: Delta = 1.632993e-3; the 10 x 50 matrix: sqrt(10) Delta = 5.163978e-3.
  EXPECT_NEAR(p.privacy["sensitivity"].get<double>(), 1.632993e-3, 1e-9);
  EXPECT_NEAR(p.privacy["noise"]["sensitivity"].get<double>(), 5.163978e-3, 1e-9);
  EXPECT_DOUBLE_EQ(p.privacy["noise"]["epsilon"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(p.privacy["noise"]["delta"].get<double>(), 1e-5);
  // sigma = sqrt(10) Delta sqrt(2 ln(1.25/1e-5)) / 0.5 = 5.163978e-3 * 4.844805 / 0.5 = 0.05003693
  EXPECT_NEAR(p.privacy["noise"]["sigma"].get<double>(), 0.0500369336, 1e-9);
  EXPECT_EQ(*p.epsilon, 0.5);
  EXPECT_EQ(*p.delta, 1e-5);
  // The per-model split at eps = 0.5 would need eps/K = 0.05, delta/K = 1e-6 each:
  // sigma = Delta sqrt(2 ln(1.25e6)) / 0.05 = 1.632993e-3 * 5.298764 / 0.05 = 0.1730582, 3.5x larger.
  c.options = {{"gaussian_calibration", "classic"}};
  const TrainingPlan split = Bolton().plan(c);
  EXPECT_EQ(split.privacy["multiclass_noise"], "per_model");
  EXPECT_NEAR(split.privacy["noise"]["sigma"].get<double>(), 0.173058166, 1e-8);

  // Binary: joint and per-model are the same mechanism.
  TrainingConfig b = mnist_like();
  b.delta = 1e-5;
  b.options = {{"multiclass_noise", "joint"}};
  const double joint_sigma = Bolton().plan(b).privacy["noise"]["sigma"].get<double>();
  b.options = nlohmann::json::object();
  EXPECT_DOUBLE_EQ(joint_sigma, Bolton().plan(b).privacy["noise"]["sigma"].get<double>());
}

TEST(BoltonPlan, StronglyConvexProjectsEveryUpdateAndUsesLemmaEight) {
  TrainingConfig c = mnist_like();
  c.lambda = 1e-3;
  const TrainingPlan p = Bolton().plan(c);
  EXPECT_EQ(p.epoch.schedule.kind, ScheduleKind::StronglyConvex);
  EXPECT_DOUBLE_EQ(p.epoch.radius, 1000.0);  // R = 1/lambda
  EXPECT_DOUBLE_EQ(p.constants.lipschitz, 2.0);  // L = 1 + lambda R
  EXPECT_DOUBLE_EQ(p.epoch.schedule.gamma, 1e-3);
  // Delta = 2L/(gamma m) = 4/(1e-3 * 60000) = 0.0666667 (§13)
  EXPECT_NEAR(p.privacy["sensitivity"].get<double>(), 0.0666667, 1e-7);
  EXPECT_EQ(p.privacy["convexity"], "strongly convex");
  EXPECT_TRUE(contains(p.privacy["sensitivity_rule"].get<std::string>(), "Lemma 8"));

  c.radius = 10.0;  // a smaller ball: L = 1 + 1e-3 * 10 = 1.01
  const TrainingPlan q = Bolton().plan(c);
  EXPECT_DOUBLE_EQ(q.epoch.radius, 10.0);
  EXPECT_NEAR(q.privacy["sensitivity"].get<double>(), 2 * 1.01 / (1e-3 * 60000), 1e-12);
}

TEST(BoltonPlan, StronglyConvexConstantStepUsesLemmaSeven) {
  TrainingConfig c = mnist_like();
  c.lambda = 1e-2;
  c.learning_rate = 0.5;  // <= 1/beta = 1/1.01
  const TrainingPlan p = Bolton().plan(c);
  EXPECT_EQ(p.epoch.schedule.kind, ScheduleKind::Constant);
  EXPECT_TRUE(contains(p.privacy["sensitivity_rule"].get<std::string>(), "Lemma 7"));
  // (2 eta L / b) sum_{j<10} rho^{1200 j}, rho = 1 - 0.005: rho^1200 = 2.4e-3, so
  // Delta = (2 * 0.5 * 2 / 50)(1 + 2.4e-3 + ...) = 0.04 * 1.0024...
  const double rho_u = std::pow(1 - 0.5 * 1e-2, 1200);
  EXPECT_NEAR(p.privacy["sensitivity"].get<double>(), 0.04 * (1 - std::pow(rho_u, 10)) / (1 - rho_u), 1e-12);
}

TEST(BoltonPlan, ConvexDecreasingAndSqrtSchedules) {
  TrainingConfig c = mnist_like();
  c.schedule = "decreasing";
  EXPECT_NEAR(Bolton().plan(c).privacy["sensitivity"].get<double>(), 4.95661e-4, 1e-9);  // §13
  c.schedule = "sqrt";
  EXPECT_NEAR(Bolton().plan(c).privacy["sensitivity"].get<double>(), 2.59141e-3, 1e-8);  // §13
  c.options = {{"schedule_c", 0.0}};  // offset m^0 = 1: eta_1 = 2/(beta (1 + 1)) = 1
  const TrainingPlan p = Bolton().plan(c);
  EXPECT_DOUBLE_EQ(p.epoch.schedule.offset, 1.0);
}

TEST(BoltonPlan, AveragingIsCoveredByLemmaTen) {
  TrainingConfig c = mnist_like();
  c.averaging = true;
  TrainingPlan p = Bolton().plan(c);
  EXPECT_EQ(p.privacy["released_iterate"], "uniform average of all iterates");
  // Convex constant: (2 L eta / b)(k + 1)/2 = 1.632993e-4 * 5.5 = 8.98146e-4
  EXPECT_NEAR(p.privacy["sensitivity"].get<double>(), 2.0 / std::sqrt(60000.0) / 50 * 5.5, 1e-15);
  // Strongly convex: early iterates are more sensitive, the average costs more.
  c.lambda = 1e-2;
  p = Bolton().plan(c);
  EXPECT_GT(p.privacy["sensitivity"].get<double>(), 0.00666667);
}

TEST(BoltonPlan, HuberDefaultStepRespectsTwoOverBeta) {
  TrainingConfig c = mnist_like();
  c.loss = "huber_svm";
  c.rows = 5;
  c.batch_size = 1;
  // beta = 1/(2h) = 5, so eta = min(1/sqrt(5), 2/5) = 0.4
  EXPECT_DOUBLE_EQ(Bolton().plan(c).epoch.schedule.eta, 0.4);
}

TEST(BoltonPlan, WarnsWhenDeltaIsNotBelowOneOverN) {
  TrainingConfig c = mnist_like();
  c.delta = 1.0 / 60000;
  const TrainingPlan p = Bolton().plan(c);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_TRUE(contains(p.warnings[0], "1/n"));
  c.delta = 1.0 / (60000.0 * 60000.0);
  EXPECT_TRUE(Bolton().plan(c).warnings.empty());
}

TEST(BoltonPlan, ErrorsAreClear) {
  TrainingConfig c = mnist_like();
  c.epsilon.reset();
  EXPECT_TRUE(contains(error_of(c), "needs epsilon"));

  c = mnist_like();
  c.learning_rate = 2.5;  // logistic beta = 1: 2/beta = 2
  EXPECT_TRUE(contains(error_of(c), "2/beta")) << error_of(c);

  c = mnist_like();
  c.lambda = 0.1;
  c.learning_rate = 0.95;  // 1/beta = 1/1.1 = 0.909
  EXPECT_TRUE(contains(error_of(c), "1/beta")) << error_of(c);

  c = mnist_like();
  c.lambda = 0.1;
  c.schedule = "constant";
  EXPECT_TRUE(contains(error_of(c), "needs learning_rate"));

  c = mnist_like();
  c.lambda = 0.1;
  c.schedule = "decreasing";
  EXPECT_TRUE(contains(error_of(c), "not available"));

  c = mnist_like();
  c.schedule = "strongly_convex";
  EXPECT_TRUE(contains(error_of(c), "lambda > 0"));

  c = mnist_like();
  c.schedule = "inverse_sqrt";
  EXPECT_TRUE(contains(error_of(c), "no Bolt-on sensitivity bound"));

  c = mnist_like();
  c.schedule = "sqrt";
  c.learning_rate = 0.1;
  EXPECT_TRUE(contains(error_of(c), "not used"));

  c = mnist_like();
  c.options = {{"tolerances", 0.01}};
  EXPECT_TRUE(contains(error_of(c), "unknown option"));

  c = mnist_like();
  c.options = {{"gaussian_calibration", "classic"}};
  EXPECT_TRUE(contains(error_of(c), "only to (epsilon, delta)-DP"));

  c = mnist_like();
  c.delta = 1e-6;
  c.options = {{"gaussian_calibration", "exact"}};
  EXPECT_TRUE(contains(error_of(c), "exact")) << error_of(c);

  c = mnist_like();
  c.epsilon = 2.0;
  c.delta = 1e-6;
  c.options = {{"gaussian_calibration", "classic"}};  // needs epsilon < 1 per model
  EXPECT_NE(error_of(c), "(no error)");
  c.classes = {"0", "1", "2", "3"};  // 4 models: 0.5 each, fine
  EXPECT_NO_THROW(Bolton().plan(c));

  c = mnist_like(10);
  c.options = {{"multiclass_noise", "joint"}};  // pure epsilon-DP: no gain, refused
  EXPECT_TRUE(contains(error_of(c), "only to (epsilon, delta)-DP")) << error_of(c);
  c.delta = 1e-6;
  c.options = {{"multiclass_noise", "together"}};
  EXPECT_TRUE(contains(error_of(c), "'per_model' or 'joint'")) << error_of(c);

  c = mnist_like();
  c.options = {{"schedule_c", 0.5}};  // only for decreasing/sqrt
  EXPECT_TRUE(contains(error_of(c), "schedule_c"));
}

std::string hint_of(const TrainingConfig& c) {
  try {
    Bolton().plan(c);
  } catch (const Error& e) {
    return e.hint();
  }
  return "(no error)";
}

TEST(BoltonPlan, OptionsOfTheWrongTypeGetAHintNamingTheValues) {
  TrainingConfig c = mnist_like();
  c.schedule = "decreasing";
  c.options = {{"schedule_c", "half"}};
  EXPECT_TRUE(contains(hint_of(c), "schedule_c")) << hint_of(c);
  c = mnist_like();
  c.delta = 1e-6;
  c.options = {{"gaussian_calibration", 1}};
  EXPECT_TRUE(contains(hint_of(c), "'analytic'")) << hint_of(c);
}

TEST(BoltonNoiseRecord, RoundTripsThroughJson) {
  BoltonNoise n;
  n.distribution = BoltonNoise::Distribution::Gaussian;
  n.sensitivity = 0.1;
  n.epsilon = 0.5;
  n.delta = 1e-6;
  n.scale = 0.7;
  const BoltonNoise m = BoltonNoise::from_json(n.to_json());
  EXPECT_EQ(m.distribution, n.distribution);
  EXPECT_EQ(m.scale, 0.7);
  EXPECT_EQ(m.delta, 1e-6);
  nlohmann::json bad = {{"distribution", "l2_laplace"}, {"sensitivity", 0.1}, {"epsilon", 0.5}, {"gamma_scale", 0.3}};
  EXPECT_THROW(BoltonNoise::from_json(bad), Error);  // 0.3 != 0.1 / 0.5
}

}  // namespace
}  // namespace dptrain
