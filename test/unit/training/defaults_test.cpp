// The defaults of a run that leaves the algorithm out (training/defaults.h):
// public choices from delta, epsilon, n, d, K and the loss, pinned to the
// hand-computed values of docs/defaults.md.
#include "core/training/defaults.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dptrain {
namespace {

// Adult as `dptrain load` gives it: n = 30162, d = 104, binary.
TrainingConfig adult(std::optional<double> delta = std::nullopt) {
  TrainingConfig c;
  c.epsilon = 1;
  c.delta = delta;
  c.rows = 30162;
  c.dim = 104;
  c.classes = {"false", "true"};
  c.intercept = true;
  return c;
}

const defaults::Unset kAllUnset{true, true, true, true};

TEST(Defaults, AlgorithmFromDelta) {
  EXPECT_EQ(defaults::algorithm(adult()), "bolton");
  EXPECT_EQ(defaults::algorithm(adult(0.0)), "bolton");  // delta 0 = pure epsilon-DP
  EXPECT_EQ(defaults::algorithm(adult(1e-9)), "dpsgd");
  TrainingConfig none = adult();
  none.epsilon.reset();
  EXPECT_EQ(defaults::algorithm(none), "bolton");  // which asks for epsilon, as before
}

TEST(Defaults, PureEpsilonBoltonOnAdult) {
  TrainingConfig c = adult();
  c.algorithm = defaults::algorithm(c);
  const std::string notice = defaults::apply(&c, kAllUnset);
  // eta = 1/beta, beta = L^2 = 2 (logistic, L = sqrt(1 + 1) with the intercept): 0.5.
  ASSERT_TRUE(c.learning_rate);
  EXPECT_DOUBLE_EQ(*c.learning_rate, 0.5);
  EXPECT_EQ(c.epochs, 5);
  EXPECT_EQ(c.lambda, 0.0);
  // b = ceil(2 k K sqrt(d') L^2 eta / (c eps)) = ceil(2 * 5 * 1 * sqrt(105) * 1 / 0.25) = ceil(409.878) = 410.
  EXPECT_EQ(c.batch_size, 410);
  EXPECT_NE(notice.find("batch_size 410"), std::string::npos) << notice;
  EXPECT_NE(notice.find("dp_tune"), std::string::npos) << notice;
}

TEST(Defaults, PureEpsilonBatchScalesWithClassesAndEpsilon) {
  TrainingConfig c = adult();
  c.epsilon = 0.5;
  c.classes = {"a", "b", "c"};  // K = 3 one-vs-all models, each with epsilon/3
  c.intercept = false;          // d' = 104, L = 1: eta = 1
  c.algorithm = "bolton";
  defaults::apply(&c, kAllUnset);
  EXPECT_DOUBLE_EQ(*c.learning_rate, 1.0);
  // ceil(2 * 5 * 3 * sqrt(104) / (0.25 * 0.5)) = ceil(2447.4) = 2448
  EXPECT_EQ(c.batch_size, static_cast<std::int64_t>(std::ceil(2 * 5 * 3 * std::sqrt(104.0) / 0.125)));
  EXPECT_EQ(c.batch_size, 2448);
}

TEST(Defaults, LambdaGivenLeavesTheStepsToTheStronglyConvexSchedule) {
  // epsilon only and lambda = 0.001 (no algorithm, no step): bolton strongly convex. A constant step
  // 1/beta of the loss alone (0.5) would exceed 1/(beta + lambda) = 1/2.001 and be refused (Lemma 7):
  // the schedule min(1/beta, 1/(lambda t)) takes the steps, and its first, 1/2.001, sizes the batch.
  TrainingConfig c = adult();
  c.lambda = 1e-3;
  c.algorithm = defaults::algorithm(c);
  const std::string notice = defaults::apply(&c, {true, true, true, false});
  EXPECT_FALSE(c.learning_rate);
  EXPECT_EQ(c.lambda, 1e-3);
  // b = ceil(2 * 5 * sqrt(105) * 2 * (1/2.001) / 0.25) = ceil(409.673) = 410
  EXPECT_EQ(c.batch_size, static_cast<std::int64_t>(std::ceil(2 * 5 * std::sqrt(105.0) * 2 / 2.001 / 0.25)));
  EXPECT_EQ(c.batch_size, 410);
  EXPECT_NE(notice.find("bolton (strongly convex"), std::string::npos) << notice;
  EXPECT_NE(notice.find("step min(1/beta, 1/(lambda t))"), std::string::npos) << notice;

  // With schedule constant the default step is 1/(beta + lambda) = 1/2.001, which Lemma 7 allows.
  TrainingConfig constant = adult();
  constant.lambda = 1e-3;
  constant.schedule = "constant";
  constant.algorithm = "bolton";
  defaults::apply(&constant, {true, true, true, false});
  ASSERT_TRUE(constant.learning_rate);
  EXPECT_DOUBLE_EQ(*constant.learning_rate, 1.0 / 2.001);
}

TEST(Defaults, DecreasingAndSqrtSchedulesTakeTheirOwnSteps) {
  // epsilon only, schedule decreasing (no algorithm, no step): the default step 1/beta was filled in
  // and every such call was refused after its charge ("learning_rate is not used by the decreasing
  // schedule"). No step now; the batch is sized with 1/beta = 0.5, at least the schedule's first
  // step 2/(beta (1 + m^c)): b = ceil(2 * 5 * sqrt(105) * 2 * 0.5 / 0.25) = ceil(409.878) = 410.
  for (const char* schedule : {"decreasing", "sqrt"}) {
    TrainingConfig c = adult();
    c.schedule = schedule;
    c.algorithm = defaults::algorithm(c);
    const std::string notice = defaults::apply(&c, kAllUnset);
    EXPECT_FALSE(c.learning_rate) << schedule;
    EXPECT_EQ(c.batch_size, 410);
    EXPECT_NE(notice.find(std::string(schedule) + " schedule 2/(beta (t + m^c))"), std::string::npos) << notice;
  }
}

TEST(Defaults, BatchCappedAtTheRows) {
  TrainingConfig c = adult();
  c.rows = 100;
  c.algorithm = "bolton";
  const std::string notice = defaults::apply(&c, kAllUnset);
  EXPECT_EQ(c.batch_size, 100);
  // The cap leaves the noise above its target: said, with the target (410 on Adult's d).
  EXPECT_NE(notice.find("batch_size 100 (all n rows: its noise target asks for b = 410 > n"), std::string::npos)
      << notice;
}

TEST(Defaults, BatchCappedOnMnistSaysTheNoiseIsAboveItsTarget) {
  // MNIST-10k as `dptrain load` gives it: n = 8000, d = 784, K = 10, an intercept (d' = 785).
  TrainingConfig c = adult();
  c.rows = 8000;
  c.dim = 784;
  c.classes = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
  c.algorithm = "bolton";
  const std::string notice = defaults::apply(&c, kAllUnset);
  // b = ceil(2 * 5 * 10 * sqrt(785) * 1 / 0.25) = ceil(11207.14) = 11208 > 8000.
  EXPECT_DOUBLE_EQ(defaults::bolton_batch_target(c, 5, 0.5), 2 * 5 * 10 * std::sqrt(785.0) * 2 * 0.5 / 0.25);
  EXPECT_EQ(c.batch_size, 8000);
  EXPECT_NE(notice.find("asks for b = 11208 > n"), std::string::npos) << notice;
  // Adult's batch (410 of 30,162 rows) is not capped: nothing said.
  TrainingConfig a = adult();
  a.algorithm = "bolton";
  EXPECT_EQ(defaults::apply(&a, kAllUnset).find("noise target"), std::string::npos);
}

TEST(Defaults, EpsilonDeltaDpsgd) {
  TrainingConfig c = adult(1.0 / (30162.0 * 30162.0));
  c.algorithm = defaults::algorithm(c);
  const std::string notice = defaults::apply(&c, kAllUnset);
  EXPECT_EQ(c.epochs, 5);
  EXPECT_EQ(c.batch_size, 50);
  EXPECT_FALSE(c.learning_rate);  // dpsgd's own step
  EXPECT_NE(notice.find("dpsgd"), std::string::npos) << notice;
}

TEST(Defaults, ExplicitArgumentsWinAndANamedAlgorithmKeepsItsClassicDefaults) {
  TrainingConfig c = adult();
  c.algorithm = "bolton";
  c.epochs = 7;
  c.learning_rate = 0.1;
  defaults::apply(&c, {true, false, true, true});
  EXPECT_EQ(c.epochs, 7);
  EXPECT_DOUBLE_EQ(*c.learning_rate, 0.1);
  // b from the formula with the given k and eta: ceil(2 * 7 * sqrt(105) * 2 * 0.1 / 0.25) = ceil(114.77) = 115
  EXPECT_EQ(c.batch_size, 115);

  TrainingConfig named = adult();
  named.algorithm = "bolton";
  EXPECT_EQ(defaults::apply(&named, {false, true, true, true}), "");
  EXPECT_EQ(named.epochs, 10);
  EXPECT_EQ(named.batch_size, 50);
  EXPECT_FALSE(named.learning_rate);
}

TEST(Defaults, BeforeThePublicFactsTheClassicValuesValidate) {
  TrainingConfig c;
  c.epsilon = 1;
  c.algorithm = "bolton";
  EXPECT_EQ(defaults::apply(&c, kAllUnset), "");  // rows = 0: not yet known
  EXPECT_EQ(c.epochs, 10);
  EXPECT_EQ(c.batch_size, 50);
}

}  // namespace
}  // namespace dptrain

namespace dptrain {
namespace {

TEST(Defaults, LambdaLeftOutIsTheAlgorithmsPaperDefault) {
  // DP-AGD: lambda = 0.001 (Lee & Kifer 2018, Sec. 6); every other algorithm 0; given values win.
  TrainingConfig agd;
  agd.algorithm = "dpagd";
  defaults::apply(&agd, {false, true, true, true});
  EXPECT_DOUBLE_EQ(agd.lambda, 1e-3);
  for (const char* name : {"bolton", "amp", "dpsgd", "pfw", "none"}) {
    TrainingConfig c;
    c.algorithm = name;
    c.lambda = 0.5;
    defaults::apply(&c, {false, true, true, true});
    EXPECT_EQ(c.lambda, 0.0) << name;
  }
  TrainingConfig given;
  given.algorithm = "dpagd";
  given.lambda = 0.02;
  defaults::apply(&given, {false, true, true, false});
  EXPECT_DOUBLE_EQ(given.lambda, 0.02);
  EXPECT_EQ(defaults::default_lambda("no_such_algorithm"), 0.0);
}

}  // namespace
}  // namespace dptrain
