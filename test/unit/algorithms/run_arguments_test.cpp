// Algorithm::check_run_arguments: what a plan refuses from the run's own
// arguments (its step, radius, schedule for its lambda) is refused without
// any fact of the data (rows = dim = 0, no classes), with the plan's own
// message, so that dp_train refuses it before it scans the table; and what
// the plan accepts passes. A refusal that needs n (DP-SGD's lot > n) stays
// with the plan.
#include <gtest/gtest.h>

#include <string>

#include "core/algorithms/algorithm.h"
#include "core/error.h"

namespace dptrain {
namespace {

// The arguments only: no n, d or classes yet.
TrainingConfig arguments(const std::string& algorithm) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.epsilon = 1.0;
  c.batch_size = 5;
  return c;
}

// The same run once the public facts are known (n = 20, d = 2, binary).
TrainingConfig with_facts(TrainingConfig c) {
  c.rows = 20;
  c.dim = 2;
  c.classes = {"false", "true"};
  return c;
}

std::string run_check_error(const TrainingConfig& c) {
  try {
    make_algorithm(c.algorithm)->check_run_arguments(c);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter) << e.what();
    return e.what();
  }
  return "";
}

std::string plan_error(const TrainingConfig& c) {
  try {
    make_algorithm(c.algorithm)->plan(with_facts(c));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Refused before the facts, with the message the plan gives once they are known.
void expect_refused_as_the_plan(const TrainingConfig& c, const std::string& part) {
  const std::string early = run_check_error(c);
  EXPECT_NE(early.find(part), std::string::npos) << early;
  EXPECT_EQ(early, plan_error(c));
}

void expect_accepted(const TrainingConfig& c) {
  EXPECT_EQ(run_check_error(c), "");
  EXPECT_EQ(plan_error(c), "");
}

TEST(RunArguments, BoltonConvexStepAgainstTwoOverBeta) {
  // logistic loss, rows clipped to ||x|| <= 1: beta = 1, so 2/beta = 2 (Bolt-on Lemma 1)
  TrainingConfig c = arguments("bolton");
  c.learning_rate = 2.5;
  expect_refused_as_the_plan(c, "2/beta = 2");
  c.learning_rate = 2.0;  // the bound itself is allowed
  expect_accepted(c);
}

TEST(RunArguments, BoltonStepUsesTheRowBoundOfTheRun) {
  // feature_bound 2: beta = 4, 2/beta = 0.5 (the intercept's augmented bound enters the same way)
  TrainingConfig c = arguments("bolton");
  c.feature_bound = 2.0;
  c.learning_rate = 0.6;
  expect_refused_as_the_plan(c, "2/beta = 0.5");
}

TEST(RunArguments, BoltonStronglyConvexConstantStepAgainstOneOverBeta) {
  // lambda = 0.1: beta = 1 + 0.1, 1/beta = 0.909 (Bolt-on Lemma 2)
  TrainingConfig c = arguments("bolton");
  c.lambda = 0.1;
  c.schedule = "constant";
  c.learning_rate = 0.95;
  expect_refused_as_the_plan(c, "1/beta");
  c.learning_rate = 0.9;
  expect_accepted(c);
  c.learning_rate.reset();  // the constant schedule with lambda > 0 needs its step
  expect_refused_as_the_plan(c, "needs learning_rate");
}

TEST(RunArguments, BoltonToleranceNeedsLambda) {
  TrainingConfig c = arguments("bolton");
  c.options = {{"tolerance", 0.1}};
  expect_refused_as_the_plan(c, "options.tolerance needs lambda > 0");
  c.lambda = 0.1;
  expect_accepted(c);
}

TEST(RunArguments, Bst14ConvexNeedsARadius) {
  TrainingConfig c = arguments("bst14");
  c.delta = 1e-6;
  expect_refused_as_the_plan(c, "bst14 with lambda = 0 needs a radius");
  c.radius = 1.0;
  expect_accepted(c);
}

TEST(RunArguments, StronglyConvexScheduleNeedsLambda) {
  for (const std::string algorithm : {"scs13", "none"}) {
    TrainingConfig c = arguments(algorithm);
    if (algorithm == "none") c.epsilon.reset();
    c.schedule = "strongly_convex";
    expect_refused_as_the_plan(c, "the strongly_convex schedule needs lambda > 0");
  }
}

TEST(RunArguments, ScheduleExponentInRange) {
  TrainingConfig c = arguments("scs13");
  c.schedule = "decreasing";
  c.options = {{"schedule_c", 1.0}};
  expect_refused_as_the_plan(c, "options.schedule_c must be in [0, 1)");
}

TEST(RunArguments, ALotLargerThanNIsLeftToThePlan) {
  TrainingConfig c = arguments("dpsgd");
  c.delta = 1e-6;
  c.batch_size = 100;  // > n = 20: only the facts can tell
  EXPECT_EQ(run_check_error(c), "");
  EXPECT_NE(plan_error(c).find("larger than the number of rows"), std::string::npos) << plan_error(c);
}

}  // namespace
}  // namespace dptrain
