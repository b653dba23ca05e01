#include <gtest/gtest.h>

#include "core/algorithms/optimum.h"
#include "core/error.h"

namespace dptrain {
namespace {

TrainingConfig config() {
  TrainingConfig c;
  c.algorithm = "optimum";
  c.rows = 1000;
  c.dim = 20;
  c.classes = {"no", "yes"};
  c.lambda = 1e-3;
  return c;
}

TEST(OptimumPlan, Defaults) {
  const optimum::OptimumPlan p = optimum::make_plan(config());
  EXPECT_DOUBLE_EQ(p.tolerance, 1e-10);
  EXPECT_DOUBLE_EQ(p.lambda, 1e-3);
  EXPECT_EQ(p.solver.method, optim::Method::Newton);
  EXPECT_EQ(p.solver.max_evaluations, 100);
  EXPECT_FALSE(p.describe().at("private").get<bool>());
  EXPECT_TRUE(p.warnings.empty());
  TrainingConfig unregularized = config();
  unregularized.lambda = 0;
  EXPECT_EQ(optimum::make_plan(unregularized).warnings.size(), 1u);
}

TEST(OptimumPlan, Options) {
  TrainingConfig c = config();
  c.options = {{"tolerance", 1e-6}, {"optimizer", "lbfgs"}, {"max_evaluations", 50}};
  const optimum::OptimumPlan p = optimum::make_plan(c);
  EXPECT_DOUBLE_EQ(p.tolerance, 1e-6);
  EXPECT_EQ(p.solver.method, optim::Method::Lbfgs);
  EXPECT_EQ(p.solver.max_evaluations, 50);
  c.dim = 301;  // auto: L-BFGS above 300 features
  c.options = nlohmann::json::object();
  EXPECT_EQ(optimum::make_plan(c).solver.method, optim::Method::Lbfgs);
}

TEST(OptimumPlan, RefusesPrivacyParametersAndSgdArguments) {
  TrainingConfig c = config();
  c.epsilon = 1.0;
  EXPECT_THROW(optimum::make_plan(c), Error);
  c = config();
  c.learning_rate = 0.1;
  EXPECT_THROW(optimum::make_plan(c), Error);
  c = config();
  c.options = {{"tolerance", -1}};
  EXPECT_THROW(optimum::make_plan(c), Error);
  c.options = {{"max_evaluations", 0}};
  EXPECT_THROW(optimum::make_plan(c), Error);
  c.options = {{"gamma", 0.1}};
  EXPECT_THROW(optimum::make_plan(c), Error);
}

}  // namespace
}  // namespace dptrain
