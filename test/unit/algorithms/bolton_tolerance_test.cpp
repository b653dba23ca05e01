// Bolt-on's convergence-tolerance option (strongly convex only, Bolt-on
// §4.3): the run stops when an epoch improves the training objective by less
// than the tolerance; the noise covers every possible stopping epoch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/algorithms/bolton.h"
#include "core/error.h"
#include "core/engine/in_memory.h"

namespace dptrain {
namespace {

TrainingConfig strongly_convex(int epochs, double tolerance) {
  TrainingConfig c;
  c.algorithm = "bolton";
  c.classes = {"neg", "pos"};
  c.epsilon = 1.0;
  c.lambda = 1e-2;
  c.epochs = epochs;
  c.batch_size = 10;
  c.seed = 3;
  if (tolerance > 0) c.options = {{"tolerance", tolerance}};
  return c;
}

InMemoryData separable(int n) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> g(0, 1);
  InMemoryData data;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x = {g(gen), g(gen), 0.5};
    const double norm = std::sqrt(x[0] * x[0] + x[1] * x[1] + 0.25);
    for (double& v : x) v /= norm;
    data.x.push_back(x);
    data.y.push_back(x[0] + 0.3 * x[1] > 0 ? 1.0 : 0.0);
  }
  return data;
}

TrainingConfig with_facts(TrainingConfig c, const InMemoryData& d) {
  c.rows = d.rows();
  c.dim = d.dim();
  return c;
}

TEST(BoltonTolerance, StopsWhenAnEpochImprovesTheObjectiveTooLittle) {
  const InMemoryData data = separable(400);
  // 90%: the second epoch never improves the objective that much.
  const Model stopped = train_in_memory(strongly_convex(20, 0.9), data, 1);
  ASSERT_TRUE(stopped.details.contains("stopping"));
  EXPECT_EQ(stopped.details["stopping"]["epochs_run"], 2);
  EXPECT_EQ(stopped.details["stopping"]["max_epochs"], 20);
  EXPECT_EQ(stopped.details["privacy"]["epochs_fixed_in_advance"], false);
  EXPECT_TRUE(stopped.details["privacy"].contains("guarantee"));
  // A tiny tolerance runs longer; never more than the maximum.
  const Model longer = train_in_memory(strongly_convex(20, 1e-9), data, 1);
  const int run = longer.details["stopping"]["epochs_run"];
  EXPECT_GT(run, 2);
  EXPECT_LE(run, 20);
  // Without the option the metadata has no stopping block and k is fixed.
  const Model fixed = train_in_memory(strongly_convex(3, 0), data, 1);
  EXPECT_FALSE(fixed.details.contains("stopping"));
  EXPECT_EQ(fixed.details["privacy"]["epochs_fixed_in_advance"], true);
}

TEST(BoltonTolerance, NoiseCoversEveryStoppingEpoch) {
  // The planned sensitivity is the largest fixed-k bound over k = 1..max:
  // compare with plans that fix each k (Lemma 8 per k).
  const InMemoryData data = separable(400);
  double largest = 0;
  for (int k = 1; k <= 12; ++k) {
    const TrainingPlan p = Bolton().plan(with_facts(strongly_convex(k, 0), data));
    largest = std::max(largest, p.privacy["sensitivity"].get<double>());
  }
  const TrainingPlan tol = Bolton().plan(with_facts(strongly_convex(12, 0.01), data));
  EXPECT_DOUBLE_EQ(tol.privacy["sensitivity"].get<double>(), largest);
  EXPECT_DOUBLE_EQ(tol.stop_tolerance, 0.01);
  EXPECT_FALSE(tol.warnings.empty());
}

TEST(BoltonTolerance, RefusedWhereNoAnalysisCoversIt) {
  const InMemoryData data = separable(100);
  TrainingConfig convex = with_facts(strongly_convex(5, 0.01), data);
  convex.lambda = 0;  // convex: sensitivity grows with k (trap T3)
  EXPECT_THROW(Bolton().plan(convex), Error);
  TrainingConfig constant = with_facts(strongly_convex(5, 0.01), data);
  constant.learning_rate = 0.1;  // Lemma 7's constant step: not the paper's option
  EXPECT_THROW(Bolton().plan(constant), Error);
  for (double bad : {0.0, 1.0, -0.1}) {
    TrainingConfig c = with_facts(strongly_convex(5, 0), data);
    c.options = {{"tolerance", bad}};
    EXPECT_THROW(Bolton().plan(c), Error) << bad;
  }
  TrainingConfig text = with_facts(strongly_convex(5, 0), data);
  text.options = {{"tolerance", "0.01"}};
  EXPECT_THROW(Bolton().plan(text), Error);
}

}  // namespace
}  // namespace dptrain
