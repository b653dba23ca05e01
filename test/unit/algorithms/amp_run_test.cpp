// AMP and the optimum as runs of the engine (algorithms/amp.h,
// optimum_run.h), driven in memory: the order of operations of Algorithm 1
// (b1 first, minimization to gamma on exact passes, then b2), seeded
// determinism, one-vs-all, and the failure path that releases nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "../optim/synthetic_glm.h"
#include "core/algorithms/algorithm.h"
#include "core/algorithms/amp.h"
#include "core/algorithms/optimum_run.h"
#include "core/engine/in_memory.h"
#include "core/error.h"
#include "core/optim/in_memory_glm.h"

namespace dptrain {
namespace {

using optim::testing::adult_like;

InMemoryData table_of(const optim::testing::Rows& r) {
  InMemoryData t;
  for (Eigen::Index i = 0; i < r.x.rows(); ++i) {
    const Eigen::VectorXd row = r.x.row(i).transpose();
    t.x.emplace_back(row.data(), row.data() + row.size());
    t.y.push_back(r.classes[static_cast<std::size_t>(i)]);
  }
  return t;
}

TrainingConfig amp_config(const InMemoryData& t, int classes = 2) {
  TrainingConfig c;
  c.algorithm = "amp";
  c.epsilon = 0.5;
  c.delta = 1.0 / (double(t.rows()) * double(t.rows()));
  c.rows = t.rows();
  c.dim = t.dim();
  c.seed = 7;
  for (int k = 0; k < classes; ++k) c.classes.push_back("c" + std::to_string(k));
  return c;
}

// Drives `run` over `t` in the data's order (the gradient sums do not depend
// on it beyond rounding) without releasing.
void drive(Run& run, const InMemoryData& t) {
  while (std::optional<Pass> p = run.next()) {
    ASSERT_EQ(p->kind, PassKind::GradientLoss);
    std::vector<double> s = p->input;
    for (std::int64_t i = 0; i < t.rows(); ++i)
      gradient_state::add_row(s.data(), t.x[i].data(), t.dim(), t.y[i]);
    run.accept(s.data(), s.size());
  }
}

// ||grad L_priv(theta)|| of model k, recomputed here from the rows (not by the run).
double private_gradient_norm(const amp::AmpPlan& p, const optim::testing::Rows& r, const Eigen::VectorXd& b1,
                             const Eigen::VectorXd& theta, int k) {
  const optim::InMemoryGlm glm(r.x, r.classes, p.models, p.loss, p.huber_h, p.lipschitz);
  const optim::DataSums s = glm.sums(k, theta, false);
  return (s.gradient_sum / double(p.rows) + p.l2_coefficient() * theta + b1).norm();
}

TEST(AmpRun, ReachesGammaOnTheExactGradientAndReleasesSolutionPlusB2) {
  const auto rows = adult_like(3000, 11);
  const InMemoryData t = table_of(rows);
  const TrainingConfig c = amp_config(t);
  const amp::AmpPlan plan = amp::make_plan(c);
  ASSERT_DOUBLE_EQ(plan.gamma, 1.0 / (3000.0 * 3000.0));  // hyperparameter-free: gamma = 1/n^2

  AmpRun run(c, plan);
  drive(run, t);
  ASSERT_TRUE(run.lockstep().converged());
  const WeightMatrix solution = run.lockstep().solutions();
  const Model m = run.release(0);

  // The stream of the seed: b1 first (step 3, drawn at start), then b2 (step 6).
  privacy::RandomSource rng = privacy::RandomSource::seeded(7);
  const WeightMatrix b1 = amp::draw_objective_noise(plan, rng);
  WeightMatrix b2 = WeightMatrix::Zero(1, t.dim());
  amp::add_output_noise(plan, b2, rng);
  const Eigen::VectorXd theta = solution.row(0).transpose();
  EXPECT_LE(private_gradient_norm(plan, rows, b1.row(0).transpose(), theta, 0), plan.gamma);
  // A point that is not the minimum does not pass the same check (the test can fail).
  EXPECT_GT(private_gradient_norm(plan, rows, b1.row(0).transpose(), theta * 1.001, 0), plan.gamma);
  EXPECT_EQ(m.weights, solution + b2);  // bit for bit: release = t_approx + b2
  EXPECT_GT(b2.norm(), 0);

  EXPECT_EQ(m.algorithm, "amp");
  EXPECT_EQ(*m.epsilon, 0.5);
  EXPECT_EQ(m.feature_bound, 1.0);
  EXPECT_TRUE(m.seeded);
  EXPECT_EQ(m.details["privacy"]["output_noise"]["sigma"].get<double>(), plan.sigma2);
  EXPECT_EQ(m.details["privacy"]["objective_noise"]["sigma"].get<double>(), plan.sigma1);
  EXPECT_EQ(m.details["privacy"]["variant"], "hyperparameter-free (Sec. V-A)");
  EXPECT_EQ(m.details["hyperparameters"]["feature_bound"].get<double>(), 1.0);
  EXPECT_LE(run.progress_done(), 10);  // Newton: a handful of passes
}

TEST(AmpRun, ProgressPerPassIsMarkedDataDependent) {
  const InMemoryData t = table_of(adult_like(1000, 3));
  std::unique_ptr<dptrain::Run> run = start_run(amp_config(t));
  int messages = 0;
  while (std::optional<Pass> p = run->next()) {
    std::vector<double> s = p->input;
    for (std::int64_t i = 0; i < t.rows(); ++i) gradient_state::add_row(s.data(), t.x[i].data(), t.dim(), t.y[i]);
    run->accept(s.data(), s.size());
    for (const Progress& pr : run->take_progress()) {
      EXPECT_TRUE(pr.depends_on_data) << pr.message;
      ++messages;
    }
  }
  EXPECT_EQ(messages, run->progress_done());
  EXPECT_EQ(run->progress_total(), 100);  // Newton's evaluation budget (public)
}

TEST(AmpRun, SeededRunsAreIdenticalAndSeedsDiffer) {
  const InMemoryData t = table_of(adult_like(1500, 5));
  TrainingConfig c = amp_config(t);
  const Model a = train_in_memory(c, t, 1);
  const Model b = train_in_memory(c, t, 2);  // another physical order: same sums up to rounding
  EXPECT_EQ(a.weights, train_in_memory(c, t, 1).weights);
  EXPECT_LT((a.weights - b.weights).norm(), 1e-9);
  c.seed = 8;
  EXPECT_GT((train_in_memory(c, t, 1).weights - a.weights).norm(), 1e-6);
}

TEST(AmpRun, OneVsAllEachModelReachesGammaWithItsOwnNoise) {
  const auto rows = adult_like(3000, 13, 3);
  const InMemoryData t = table_of(rows);
  const TrainingConfig c = amp_config(t, 3);
  const amp::AmpPlan plan = amp::make_plan(c);
  EXPECT_DOUBLE_EQ(plan.model_epsilon, 0.5 / 3);
  AmpRun run(c, plan);
  drive(run, t);
  ASSERT_TRUE(run.lockstep().converged());
  const WeightMatrix solution = run.lockstep().solutions();
  privacy::RandomSource rng = privacy::RandomSource::seeded(7);
  const WeightMatrix b1 = amp::draw_objective_noise(plan, rng);
  for (int k = 0; k < 3; ++k)
    EXPECT_LE(private_gradient_norm(plan, rows, b1.row(k).transpose(), solution.row(k).transpose(), k), plan.gamma)
        << "model " << k;
  EXPECT_EQ(run.release(0).weights.rows(), 3);
}

TEST(AmpRun, NotReachingGammaReleasesNothing) {
  const InMemoryData t = table_of(adult_like(1000, 3));
  TrainingConfig c = amp_config(t);
  c.options = {{"max_evaluations", 2}};  // Newton from 0 needs ~5 passes to reach 1/n^2
  std::unique_ptr<dptrain::Run> run = start_run(c);
  try {
    drive(*run, t);
    FAIL() << "the run did not fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ProgramLimit);
    EXPECT_NE(std::string(e.what()).find("nothing is released"), std::string::npos);
    EXPECT_NE(e.hint().find("no retry"), std::string::npos);
    // Nothing data-dependent (which model, how far from gamma) in the error.
    EXPECT_EQ(std::string(e.detail()).find("model 0"), std::string::npos) << e.detail();
  }
  EXPECT_EQ(run->progress_done(), 2);  // no third pass: no retry with other noise
  EXPECT_THROW(run->next(), Error);    // still failed
  EXPECT_THROW(run->release(0), Error);
}

TEST(AmpRun, ArgumentsRefusedBeforeAnyDataFact) {
  const std::unique_ptr<Algorithm> a = make_algorithm("amp");
  TrainingConfig c;  // no rows, no classes: only the arguments are looked at
  c.algorithm = "amp";
  c.epsilon = 1;
  EXPECT_THROW(a->check_arguments(c), Error);  // no delta
  c.delta = 0;
  EXPECT_THROW(a->check_arguments(c), Error);  // delta = 0
  c.delta = 1e-6;
  EXPECT_NO_THROW(a->check_arguments(c));
  c.options = {{"f1", 1.5}};
  EXPECT_THROW(a->check_arguments(c), Error);
  c.options = {{"step", 1}};
  EXPECT_THROW(a->check_arguments(c), Error);
  c.options = {{"max_evaluations", 0}};
  EXPECT_THROW(a->check_arguments(c), Error);
  c.options = {};
  c.learning_rate = 0.1;
  EXPECT_THROW(a->check_arguments(c), Error);
}

TEST(OptimumRun, ReachesTheToleranceWithoutNoise) {
  const auto rows = adult_like(2000, 17);
  const InMemoryData t = table_of(rows);
  TrainingConfig c;
  c.algorithm = "optimum";
  c.lambda = 1.0 / 2000;
  c.rows = t.rows();
  c.dim = t.dim();
  c.classes = {"a", "b"};
  const Model m = train_in_memory(c, t, 1);
  EXPECT_EQ(m.algorithm, "optimum");
  EXPECT_FALSE(m.epsilon.has_value());
  EXPECT_EQ(m.details["privacy"]["private"], false);
  const optim::InMemoryGlm glm(rows.x, rows.classes, 1, LossKind::Logistic, kDefaultHuberH, 1.0);
  const Eigen::VectorXd w = m.weights.row(0).transpose();
  const double norm = (glm.sums(0, w, false).gradient_sum / 2000.0 + c.lambda * w).norm();
  EXPECT_LE(norm, optimum::OptimumPlan::kDefaultTolerance);
  EXPECT_GT(norm, 0);
  // Deterministic: no noise, no seed needed.
  EXPECT_EQ(train_in_memory(c, t, 1).weights, m.weights);
}

TEST(OptimumRun, RefusesABudget) {
  const std::unique_ptr<Algorithm> a = make_algorithm("optimum");
  TrainingConfig c;
  c.algorithm = "optimum";
  c.epsilon = 1;
  EXPECT_THROW(a->check_arguments(c), Error);
}

}  // namespace
}  // namespace dptrain
