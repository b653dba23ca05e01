// The DP-SGD family as a run of the engine: the passes it asks for, the
// in-memory twin of the PoissonLots pass against the phase-1 driver
// (dpsgd/in_memory.h), the defaults with only epsilon and delta, the
// metadata, and bad input refused before any data is read.
#include "core/algorithms/dpsgd_run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/dpsgd.h"
#include "core/dpsgd/in_memory.h"
#include "core/dpsgd/lot_state.h"
#include "core/engine/in_memory.h"
#include "core/error.h"
#include "core/privacy/rdp_sampled_gaussian.h"
#include "core/privacy/sampled_gaussian_account.h"
#include "core/tuning/private_tuning.h"

namespace dptrain {
namespace {

// n rows of d features with norm <= 1, labels from a fixed linear rule.
InMemoryData synthetic(int n, int d, int classes, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z;
  InMemoryData data;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(static_cast<std::size_t>(d));
    double norm = 0;
    for (double& v : x) v = z(g), norm += v * v;
    norm = std::sqrt(norm);
    for (double& v : x) v /= std::max(1.0, norm);
    data.x.push_back(x);
    const int label = classes == 2 ? (x[0] + 0.5 * x[1] > 0 ? 1 : 0) : static_cast<int>(i % classes);
    data.y.push_back(label);
  }
  return data;
}

TrainingConfig config(const std::string& algorithm, const InMemoryData& data, int classes = 2) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.rows = data.rows();
  c.dim = data.dim();
  c.classes.clear();
  for (int k = 0; k < classes; ++k) c.classes.push_back("c" + std::to_string(k));
  c.epsilon = 1;
  c.delta = 1e-5;
  c.batch_size = 20;
  c.epochs = 2;
  c.seed = 7;
  return c;
}

TEST(DpSgdRun, EveryFamilyMemberIsImplemented) {
  for (const std::string& name : dpsgd_family()) {
    std::unique_ptr<Algorithm> a = make_algorithm(name);
    EXPECT_EQ(a->name(), name);
  }
}

TEST(DpSgdRun, DefaultsWithOnlyEpsilonAndDelta) {
  const InMemoryData data = synthetic(500, 3, 2, 1);
  TrainingConfig c = config("dpsgd", data);
  c.batch_size = 50;
  c.epochs = 10;
  DpSgdRun run(c);
  const dpsgd::DpSgdPlan& p = run.dpsgd_plan();
  // T = epochs * ceil(n / L) = 10 * 10; q = L / n = 0.1; C = 1; alpha = 0.5.
  EXPECT_EQ(p.steps, 100);
  EXPECT_DOUBLE_EQ(p.sampling_rate, 0.1);
  EXPECT_DOUBLE_EQ(p.lots.clip_norm, 1.0);
  EXPECT_DOUBLE_EQ(p.lots.learning_rate, 0.5);
  EXPECT_LE(p.account.epsilon, 1.0);
  EXPECT_GT(p.account.epsilon, 0.999);  // the smallest sigma: the target is (almost) reached
  // lots_per_query: ceil(250000 / 50) = 5000 > T: one query.
  EXPECT_EQ(run.lots_per_query(), 100u);
}

// The engine's PoissonLots pass (in-memory twin) runs exactly the phase-1
// driver's lots, so every pass size gives the bit-identical model.
TEST(DpSgdRun, InMemoryPassesMatchThePhaseOneDriver) {
  const InMemoryData data = synthetic(300, 4, 2, 2);
  for (const char* name : {"dpsgd", "dpadam", "adadp", "dpmomentum", "dpadamwosm"}) {
    TrainingConfig c = config(name, data);
    c.options = {{"lots_per_query", 7}};
    DpSgdRun run(c);
    const Model m = drive_in_memory(run, data);
    EXPECT_EQ(run.queries(), static_cast<std::uint64_t>((run.dpsgd_plan().steps + 6) / 7)) << name;

    std::vector<double> x;
    std::vector<int> labels;
    for (std::size_t i = 0; i < data.x.size(); ++i) {
      x.insert(x.end(), data.x[i].begin(), data.x[i].end());
      labels.push_back(static_cast<int>(data.y[i]));
    }
    const dpsgd::LabeledRows rows{x.data(), labels.data(), data.rows(), data.dim()};
    const std::vector<double> state =
        dpsgd::train_in_memory(run.dpsgd_plan(), rows, dpsgd_run_key(c), true, 1000);
    for (int j = 0; j < data.dim(); ++j)
      EXPECT_EQ(m.weights(0, j), dpsgd::lot_state::theta(state.data())[j]) << name << " weight " << j;
  }
}

TEST(DpSgdRun, SameSeedSameModelOtherSeedOtherModel) {
  const InMemoryData data = synthetic(200, 3, 3, 3);
  TrainingConfig c = config("dpadam", data, 3);
  DpSgdRun a(c), b(c);
  const Model ma = drive_in_memory(a, data), mb = drive_in_memory(b, data);
  EXPECT_TRUE(ma.weights.isApprox(mb.weights, 0));
  EXPECT_EQ(ma.weights.rows(), 3);
  c.seed = 8;
  DpSgdRun other(c);
  EXPECT_FALSE(drive_in_memory(other, data).weights.isApprox(ma.weights, 1e-6));
}

// The model records q, sigma, C, T and the orders, and an independent
// evaluation of the accountant at that record gives the recorded epsilon.
TEST(DpSgdRun, MetadataRecordsTheAccountOfTheLotsRun) {
  const InMemoryData data = synthetic(400, 3, 2, 4);
  TrainingConfig c = config("adadp", data);
  c.epochs = 1;  // T = ceil(400 / 20) = 20 lots (even)
  DpSgdRun run(c);
  const Model m = drive_in_memory(run, data);
  ASSERT_TRUE(m.epsilon && m.delta);
  const nlohmann::json& priv = m.details.at("privacy");
  EXPECT_EQ(priv.at("steps").get<std::int64_t>(), 20);  // both halves of every ADADP pair count
  EXPECT_TRUE(priv.at("accounted").get<bool>());
  const privacy::SampledGaussianAccount acc = privacy::account_from_json(priv);
  EXPECT_DOUBLE_EQ(acc.sampling_rate, 20.0 / 400.0);
  const privacy::RdpEpsilon again =
      privacy::sampled_gaussian_epsilon(acc.sampling_rate, acc.noise_multiplier, acc.steps, acc.delta, acc.rdp);
  EXPECT_NEAR(again.epsilon, *m.epsilon, 1e-9 * *m.epsilon);
  EXPECT_LE(*m.epsilon, 1.0);
  EXPECT_EQ(m.details.at("queries").get<int>(), 1);
  EXPECT_TRUE(m.seeded);
  const nlohmann::json& ad = m.details.at("adadp");
  EXPECT_EQ(ad.at("accepted_pairs").get<int>() + ad.at("rejected_pairs").get<int>(), 10);
}

TEST(DpSgdRun, StateFromAnotherRunIsRefused) {
  const InMemoryData data = synthetic(100, 2, 2, 5);
  TrainingConfig c = config("dpsgd", data);
  DpSgdRun a(c);
  c.seed = 99;  // another key
  DpSgdRun b(c);
  std::optional<Pass> pa = a.next();
  std::optional<Pass> pb = b.next();
  ASSERT_TRUE(pa && pb);
  EXPECT_EQ(pa->kind, PassKind::PoissonLots);
  EXPECT_EQ(pa->rows, 100);
  EXPECT_THROW(a.accept(pb->input.data(), pb->input.size()), Error);
}

void expect_refused(TrainingConfig c, const std::string& fragment) {
  try {
    DpSgdRun run(c);
    ADD_FAILURE() << "accepted; expected: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(DpSgdRun, BadInputIsRefusedBeforeAnyDataIsRead) {
  const InMemoryData data = synthetic(100, 2, 2, 6);
  TrainingConfig c = config("dpsgd", data);
  TrainingConfig x = c;
  x.delta.reset();
  expect_refused(x, "needs delta");
  x = c;
  x.epsilon.reset();
  expect_refused(x, "needs epsilon");
  x = c;
  x.averaging = true;
  expect_refused(x, "averaging");
  x = c;
  x.options = {{"clip_norm", -1}};
  expect_refused(x, "clipping norm");
  x = c;
  x.options = {{"bogus", 1}};
  expect_refused(x, "bogus");
  x = c;
  x.algorithm = "adadp";
  x.options = {{"steps", 11}};
  expect_refused(x, "even");
  x = c;
  x.algorithm = "psgd";
  x.options = {{"closed_form_noise", true}};
  x.seed.reset();
  expect_refused(x, "seed");
  x = c;
  x.algorithm = "psgd";
  x.lambda = 0.01;
  expect_refused(x, "radius");
  x = c;
  x.epsilon = 1e-5;  // below twice the order floor of the accountant
  expect_refused(x, "epsilon");
  x = c;
  x.schedule = "strongly_convex";
  expect_refused(x, "schedule");
}

TEST(DpSgdRun, AConversionOfTheWrongTypeGetsAHint) {
  TrainingConfig c = config("dpsgd", synthetic(100, 2, 2, 6));
  c.options = {{"conversion", 1}};
  try {
    make_algorithm("dpsgd")->plan(c);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("options.conversion"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("'improved'"), std::string::npos) << e.hint();
  }
}

// Bolt-on's Algorithm 3 (dp_tune) is a replace-one argument in which every
// candidate spends exactly (epsilon, delta): refused for the family, before
// anything is charged.
TEST(DpSgdRun, PrivateTuningRefusesTheFamily) {
  const InMemoryData data = synthetic(100, 2, 2, 8);
  for (const std::string& name : dpsgd_family()) EXPECT_THROW(tuning::check_tunable(config(name, data)), Error) << name;
  EXPECT_NO_THROW(tuning::check_tunable(config("bolton", data)));
}

// P-SGD's closed-form noise: the model is marked not accounted, and its
// epsilon is what the accountant certifies for that noise, not the claim.
// Here z = 4 q sqrt(T ln(1/delta)) / epsilon = 4 * 0.01 * sqrt(100 ln 1e6) / 8
// = 0.186: far too little noise for epsilon = 8.
TEST(DpSgdRun, ClosedFormPsgdIsMarkedNotAccounted) {
  const InMemoryData data = synthetic(1000, 2, 2, 7);
  TrainingConfig c = config("psgd", data);
  c.epsilon = 8;
  c.delta = 1e-6;
  c.batch_size = 10;
  c.options = {{"closed_form_noise", true}, {"steps", 100}};
  DpSgdRun run(c);
  const Model m = drive_in_memory(run, data);
  EXPECT_FALSE(m.details.at("privacy").at("accounted").get<bool>());
  EXPECT_DOUBLE_EQ(m.details.at("privacy").at("claimed_epsilon").get<double>(), 8);
  EXPECT_NEAR(m.details.at("privacy").at("noise_multiplier").get<double>(),
              4 * 0.01 * std::sqrt(100 * std::log(1e6)) / 8, 1e-12);
  ASSERT_TRUE(m.epsilon);
  EXPECT_GT(*m.epsilon, 8);
  EXPECT_FALSE(run.warnings().empty());
}

}  // namespace
}  // namespace dptrain
