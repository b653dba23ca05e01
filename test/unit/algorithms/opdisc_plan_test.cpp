// OPDisc's plan (Neel, Roth, Vietri & Wu 2020, Algorithm 1 / Theorem 1):
// the grid defaults, G, D and sigma pinned to values computed by hand, the
// refusals, and the run end to end in memory.
#include <gtest/gtest.h>

#include <cmath>

#include "core/algorithms/opdisc.h"
#include "core/algorithms/opdisc_plan.h"
#include "core/engine/in_memory.h"
#include "core/error.h"

namespace dptrain {
namespace {

// The paper's Adult experiment: n = 15682, d = 23, delta = 1/n^2, tau = 1.
TrainingConfig adult_config(double epsilon) {
  TrainingConfig c;
  c.algorithm = "opdisc";
  c.epsilon = epsilon;
  c.delta = 1.0 / (15682.0 * 15682.0);
  c.rows = 15682;
  c.dim = 23;
  c.classes = {"<=50K", ">50K"};
  return c;
}

TEST(OpdiscPlan, SigmaOfTheorem1ByHand) {
  // ln(1/delta) = 2 ln 15682 = 2 (ln 1.5682 + 4 ln 10) = 2 (0.449932 + 9.210340)
  //             = 19.320545; sqrt = 4.395514.
  // B = floor(sqrt 23) = 4, K = 23, D = sqrt 23, G = 1/tau = 1:
  // sigma = 7 G D^2 sqrt(ln 1/delta) / (tau eps) = 7 * 23 * 4.395514 / 0.1 = 7076.78
  // (the authors' code uses half: 3538.39).
  const opdisc::Plan p = opdisc::make_plan(adult_config(0.1));
  EXPECT_EQ(p.bound, 4);
  EXPECT_EQ(p.norm_squared, 23);
  EXPECT_DOUBLE_EQ(p.tau, 1);
  EXPECT_DOUBLE_EQ(p.lipschitz, 1);
  EXPECT_NEAR(p.radius, std::sqrt(23.0), 1e-12);
  EXPECT_NEAR(p.sigma, 7076.78, 0.01);
  // eps = 1: ten times smaller, 707.678.
  EXPECT_NEAR(opdisc::make_plan(adult_config(1)).sigma, 707.678, 0.001);
}

// sigma = 707.678 / eps: eps = 1e-30 gave sigma ~ 7e32, and CBC aborted on
// it (XX000 "the opdisc solver process failed"); refused when planning.
TEST(OpdiscPlan, RefusesASigmaTheSolverCannotRepresent) {
  EXPECT_NEAR(opdisc::make_plan(adult_config(1e-17)).sigma, 7.07678e19, 1e15);
  try {
    opdisc::make_plan(adult_config(1e-30));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_STREQ(e.what(), "epsilon is too small for opdisc's exact oracle");
  }
}

TEST(OpdiscPlan, TauDoesNotChangeTheMechanism) {
  // tau = 2: G = 1/2, D = 2 sqrt 23, D^2 = 92: 7 * 0.5 * 92 * 4.395514 / (2 * 0.1)
  // = 7076.78 again (sigma = 7 K sqrt(ln 1/delta) / eps for every tau), and
  // pi(tau k) = pi(k): the released classifier is the same up to the scale.
  TrainingConfig c = adult_config(0.1);
  c.options = {{"tau", 2.0}};
  const opdisc::Plan p = opdisc::make_plan(c);
  EXPECT_DOUBLE_EQ(p.lipschitz, 0.5);
  EXPECT_NEAR(p.radius, 2 * std::sqrt(23.0), 1e-12);
  EXPECT_NEAR(p.sigma, 7076.78, 0.01);
}

TEST(OpdiscPlan, ConfigurableGridAndSmallCase) {
  // d = 4, delta = 0.1, eps = 2 (<= ln 10 = 2.302585), B = 2 (default), K = 4:
  // sigma = 7 * 4 * sqrt(2.302585) / 2 = 28 * 1.517427 / 2 = 21.24398.
  TrainingConfig c = adult_config(2);
  c.dim = 4;
  c.delta = 0.1;
  opdisc::Plan p = opdisc::make_plan(c);
  EXPECT_EQ(p.bound, 2);
  EXPECT_NEAR(p.sigma, 21.24398, 1e-4);
  // K = 9, B = 3: sigma = 7 * 9 * 1.517427 / 2 = 47.79895.
  c.options = {{"bound", 3}, {"norm_squared", 9}};
  p = opdisc::make_plan(c);
  EXPECT_EQ(p.bound, 3);
  EXPECT_EQ(p.norm_squared, 9);
  EXPECT_NEAR(p.sigma, 47.79895, 1e-4);
}

TEST(OpdiscPlan, Refusals) {
  auto refused = [](TrainingConfig c, ErrorKind kind) {
    try {
      opdisc::make_plan(c);
    } catch (const Error& e) {
      return e.kind() == kind;
    }
    return false;
  };
  TrainingConfig c = adult_config(1);
  c.delta = 0.0;
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "delta = 0";
  c = adult_config(1);
  c.delta.reset();
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "no delta";
  c = adult_config(1);
  c.epsilon.reset();
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "no epsilon";
  c = adult_config(1);
  c.classes = {"a", "b", "c"};
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "three classes";
  c = adult_config(1);
  c.dim = opdisc::kMaxFeatures + 1;
  EXPECT_TRUE(refused(c, ErrorKind::ProgramLimit)) << "too many features";
  c = adult_config(3);
  c.delta = 0.1;  // ln 10 = 2.30 < 3: outside Theorem 1's constant
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "epsilon > ln(1/delta)";
  c = adult_config(1);
  c.lambda = 0.1;
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "lambda";
  c = adult_config(1);
  c.options = {{"bound", 0}};
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "bound 0";
  c = adult_config(1);
  c.options = {{"unknown", 1}};
  EXPECT_TRUE(refused(c, ErrorKind::InvalidParameter)) << "unknown option";
  // The argument checks need no fact of the data (they run before the charge).
  TrainingConfig bare;
  bare.algorithm = "opdisc";
  bare.epsilon = 1;
  bare.delta = 1e-9;
  EXPECT_NO_THROW(make_algorithm("opdisc")->check_arguments(bare));
  bare.delta = 0.0;
  EXPECT_THROW(make_algorithm("opdisc")->check_arguments(bare), Error);
  bare.delta = 1e-9;
  bare.options = {{"time_limit", -1}};
  EXPECT_THROW(make_algorithm("opdisc")->check_arguments(bare), Error);
}

// Separable binary data: y = 1 iff x_1 = 1.
InMemoryData separable(int n) {
  InMemoryData data;
  for (int i = 0; i < n; ++i) {
    const double a = i % 2, b = (i / 2) % 2, c = (i / 4) % 2;
    data.x.push_back({a, b, c, 1});
    data.y.push_back(a);
  }
  return data;
}

TEST(OpdiscRun, SeededRunsAreIdenticalAndLargeEpsilonFitsSeparableData) {
  TrainingConfig c;
  c.algorithm = "opdisc";
  c.epsilon = 20;
  c.delta = 1e-9;
  c.seed = 11;
  c.classes = {"neg", "pos"};
  const InMemoryData data = separable(400);
  const Model a = train_in_memory(c, data, 1);
  const Model b = train_in_memory(c, data, 2);  // another physical order: same groups, same model
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_TRUE(a.seeded);
  EXPECT_EQ(a.algorithm, "opdisc");
  // sigma = 7 * 4 * sqrt(ln 1e9) / 20 = 28 * 4.552 / 20 = 6.37 against 400 rows:
  // the 0/1 optimum (0 errors) wins.
  int errors = 0;
  for (std::size_t i = 0; i < data.x.size(); ++i) {
    double s = 0;
    for (int j = 0; j < 4; ++j) s += a.weights(0, j) * data.x[i][static_cast<std::size_t>(j)];
    errors += (s >= 0 ? 1.0 : 0.0) != data.y[i];
  }
  EXPECT_EQ(errors, 0);
  EXPECT_NEAR(a.details["privacy"]["sigma"].get<double>(), 7 * 4 * std::sqrt(std::log(1e9)) / 20, 1e-9);
  // The weights are on the grid: integers in [-2, 2] with ||k||^2 <= 4.
  double squared = 0;
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(a.weights(0, j), std::round(a.weights(0, j)));
    squared += a.weights(0, j) * a.weights(0, j);
  }
  EXPECT_LE(squared, 4);
}

TEST(OpdiscRun, ThePassAsksForGroupsAndTheNoiseIsDrawnFirst) {
  TrainingConfig c;
  c.algorithm = "opdisc";
  c.epsilon = 1;
  c.delta = 1e-6;
  c.rows = 10;
  c.dim = 3;
  c.classes = {"neg", "pos"};
  std::unique_ptr<dptrain::Run> run = start_run(c);  // noise drawn here, from public inputs only
  std::optional<Pass> p = run->next();
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->kind, PassKind::GroupedRows);
  EXPECT_EQ(p->input, std::vector<double>{static_cast<double>(opdisc::kMaxGroups)});
  EXPECT_EQ(run->progress_total(), 2);
  // A result that does not count every row exactly once is refused.
  const std::vector<double> short_result = {1, 0, 1, 0, 1, 3, 2};  // 5 rows of 10
  EXPECT_THROW(run->accept(short_result.data(), short_result.size()), Error);
}

}  // namespace
}  // namespace dptrain
