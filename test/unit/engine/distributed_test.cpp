// Training on a distributed source (core/engine/distributed.h): the
// per-shard PSGD plan of an epoch run, the refusals that must come before
// any charge, the pushed-down SQL, and a whole distributed bolt-on run in
// memory, epoch by epoch exactly as Citus runs the aggregate
// (sgd/sharded_epoch.h) over shards shuffled by the keyed hash.
#include "core/engine/distributed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithms/bolton.h"
#include "core/engine/epoch_run.h"
#include "core/engine/gradient_state.h"
#include "core/error.h"
#include "core/sgd/sharded_epoch.h"
#include "core/sgd/shuffle_key.h"

namespace dptrain {
namespace {

// 4 shards of 250 rows, b = 10, 2 epochs, logistic loss with feature bound
// 1 (L = 1, beta = 1 as this repository bounds it), convex constant step
// eta = 0.75.
TrainingConfig sharded(const std::string& algorithm = "bolton") {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.epochs = 2;
  c.batch_size = 10;
  c.rows = 1000;
  c.dim = 2;
  c.classes = {"neg", "pos"};
  c.seed = 5;
  c.learning_rate = 0.75;
  c.epsilon = 1;
  c.shard_rows = {250, 250, 250, 250};
  c.distribution_column = "id";
  return c;
}

TEST(DistributedEpochs, ConvexConstantStepIsTheSequentialEquivalentWithTheSequentialBound) {
  const TrainingConfig c = sharded();
  const EpochRun run(c);  // plans and checks
  const distributed::EpochPlan e = distributed::plan_epochs(c, run.plan());
  // By hand (docs/distributed.md section 3): c = n / max_s n_s = 4, the
  // shard step c eta = 3 exceeds 2/beta = 2, so P = ceil(3 / 2) = 2
  // passes at eta' = 1.5; U = ceil(2 * 250 / 10) = 50 updates per epoch.
  EXPECT_EQ(e.local_passes, 2);
  EXPECT_NEAR(e.schedule.eta, 1.5, 1e-11);
  EXPECT_LE(e.schedule.eta, 1.5);
  EXPECT_EQ(e.updates_per_epoch, 50);
  // Delta = k P (2 L eta' / b) max_s n_s/n = 2 * 2 * (2 * 1.5 / 10) * 1/4 = 0.3,
  // the sequential Corollary 1 bound 2 k L eta / b = 2 * 2 * 0.75 / 10 = 0.3,
  // never above it (the step is shortened by 1e-12 against rounding).
  EXPECT_NEAR(e.sensitivity, 0.3, 1e-12);
  EXPECT_LE(e.sensitivity, run.plan().privacy["sensitivity"].get<double>());
  EXPECT_DOUBLE_EQ(run.plan().privacy["sensitivity"].get<double>(), 0.3);
  EXPECT_EQ(e.record["local_passes"], 2);
}

TEST(DistributedEpochs, UnequalShardsScaleByTheLargest) {
  TrainingConfig c = sharded();
  c.shard_rows = {600, 300, 100};
  c.learning_rate = 0.5;
  const EpochRun run(c);
  const distributed::EpochPlan e = distributed::plan_epochs(c, run.plan());
  // c = 1000/600, shard step 0.5 * 5/3 = 5/6 <= 2/beta = 2: one pass; U = 60.
  // Delta = 2 * 1 * (2 * 5/6 / 10) * 0.6 = 0.2 = 2 * 2 * 0.5 / 10.
  EXPECT_EQ(e.local_passes, 1);
  EXPECT_NEAR(e.schedule.eta, 5.0 / 6.0, 1e-12);
  EXPECT_EQ(e.updates_per_epoch, 60);
  EXPECT_NEAR(e.sensitivity, 0.2, 1e-12);
  EXPECT_LE(e.sensitivity, run.plan().privacy["sensitivity"].get<double>());
}

TEST(DistributedEpochs, StronglyConvexKeepsTheScheduleAndCalibratesTheNoiseToThePerShardBound) {
  TrainingConfig c = sharded();
  c.learning_rate.reset();
  c.lambda = 0.01;
  const TrainingPlan sequential_plan = make_algorithm("bolton")->plan(c);
  const EpochRun run(c);
  const distributed::EpochPlan e = distributed::plan_epochs(c, sequential_plan);
  EXPECT_EQ(e.local_passes, 1);
  EXPECT_EQ(e.schedule.kind, ScheduleKind::StronglyConvex);
  EXPECT_EQ(e.updates_per_epoch, 25);  // ceil(250 / 10)
  const double sequential = sequential_plan.privacy["sensitivity"].get<double>();
  EXPECT_GT(e.sensitivity, 0);
  EXPECT_LT(e.sensitivity, sequential);
  // The run's plan (what release() reads and the model records) is
  // re-calibrated to the per-shard bound.
  EXPECT_DOUBLE_EQ(run.plan().privacy["sensitivity"].get<double>(), e.sensitivity);
  EXPECT_DOUBLE_EQ(run.plan().privacy["noise"]["gamma_scale"].get<double>(), e.sensitivity / 1.0);
}

// A strongly convex run small enough to compute by hand: n = 4 rows in
// shards of 2 and 2, b = 2, one epoch, lambda = 1, logistic loss with
// feature bound 1: R = 1/lambda = 1, L = 1 + lambda R = 2, beta = 1 +
// lambda = 2, gamma = 1; step eta_t = min(1/beta, 1/(gamma t)).
TrainingConfig tiny_strongly_convex() {
  TrainingConfig c = sharded();
  c.learning_rate.reset();
  c.lambda = 1;
  c.epochs = 1;
  c.batch_size = 2;
  c.rows = 4;
  c.shard_rows = {2, 2};
  return c;
}

TEST(DistributedEpochs, StronglyConvexNoiseIsTheLaplaceOfThePerShardBoundByHand) {
  const TrainingConfig c = tiny_strongly_convex();
  const EpochRun run(c);
  const nlohmann::json& privacy = run.plan().privacy;
  ASSERT_DOUBLE_EQ(privacy["lipschitz"].get<double>(), 2.0);
  ASSERT_DOUBLE_EQ(privacy["smoothness"].get<double>(), 2.0);
  // Sequential (Bolt-on Lemma 8): U = m/b = 2 updates, T = 2,
  //   Delta = k (2L/b) min(1/beta, 1/(gamma T)) = 1 * 2 * 1/2 = 1.
  const TrainingPlan sequential = make_algorithm("bolton")->plan(c);
  EXPECT_DOUBLE_EQ(sequential.privacy["sensitivity"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(sequential.privacy["noise"]["gamma_scale"].get<double>(), 1.0);
  // Per shard (docs/distributed.md section 2): U = max_s ceil(2/2) = 1; each
  // shard makes the update t = 1 at eta_1 = 1/2, I_s = (2L/b) eta_1 = 1,
  // weight n_s/n = 1/2: Delta = max_s (1/2) * 1 = 1/2.
  // Pure epsilon = 1: L2-Laplace with Gamma scale Delta/epsilon = 0.5, the
  // expected norm d * 0.5 = 1 (d = 2).
  EXPECT_DOUBLE_EQ(privacy["sensitivity"].get<double>(), 0.5);
  EXPECT_EQ(privacy["noise"]["distribution"], "l2_laplace");
  EXPECT_DOUBLE_EQ(privacy["noise"]["sensitivity"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(privacy["noise"]["gamma_scale"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(privacy["noise"]["expected_norm"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(privacy["per_model_epsilon"].get<double>(), 1.0);
  EXPECT_NE(privacy["sensitivity_rule"], sequential.privacy["sensitivity_rule"]);  // the per-shard recursion's
  // release() reads exactly this block.
  EXPECT_DOUBLE_EQ(BoltonNoise::from_json(privacy["noise"]).scale, 0.5);
}

TEST(DistributedEpochs, RecalibrationKeepsTheOneVsAllSplitAndTheJointRule) {
  // K = 3 one-vs-all models, each with the per-model bound Delta = 1/2 (as above).
  TrainingConfig c = tiny_strongly_convex();
  c.classes = {"a", "b", "c"};
  // Per model (pure): each model gets epsilon/K = 1/3: scale (1/2)/(1/3) = 1.5.
  {
    const EpochRun run(c);
    const nlohmann::json& p = run.plan().privacy;
    EXPECT_DOUBLE_EQ(p["per_model_epsilon"].get<double>(), 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(p["noise"]["sensitivity"].get<double>(), 0.5);
    EXPECT_NEAR(p["noise"]["gamma_scale"].get<double>(), 1.5, 1e-15);
  }
  // Joint Gaussian ((epsilon, delta) = (1, 1e-6)): one release of the 3 x d
  // matrix with sensitivity sqrt(3) Delta = sqrt(3)/2 (sequential: sqrt(3)).
  // The analytic sigma is linear in the sensitivity (sigma = Delta f(eps,
  // delta)), so it is exactly half the sequential one.
  c.delta = 1e-6;
  c.options = {{"multiclass_noise", "joint"}};
  const TrainingPlan sequential = make_algorithm("bolton")->plan(c);
  const EpochRun run(c);
  const nlohmann::json& p = run.plan().privacy;
  EXPECT_EQ(p["noise"]["distribution"], "gaussian");
  EXPECT_DOUBLE_EQ(p["per_model_epsilon"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(p["per_model_delta"].get<double>(), 1e-6);
  EXPECT_DOUBLE_EQ(p["noise"]["sensitivity"].get<double>(), std::sqrt(3.0) / 2);
  EXPECT_DOUBLE_EQ(sequential.privacy["noise"]["sensitivity"].get<double>(), std::sqrt(3.0));
  const double sigma = sequential.privacy["noise"]["sigma"].get<double>();
  EXPECT_NEAR(p["noise"]["sigma"].get<double>(), sigma / 2, 1e-9 * sigma);
  EXPECT_EQ(p["noise"]["calibration"], "analytic");
}

TEST(DistributedEpochs, ConvexConstantStepNoiseIsUnchanged) {
  const TrainingConfig c = sharded();
  const TrainingPlan sequential = make_algorithm("bolton")->plan(c);
  const EpochRun run(c);
  // Delta_shard = the sequential 0.3 (first test): the plan is not touched.
  EXPECT_EQ(run.plan().privacy, sequential.privacy);
  EXPECT_DOUBLE_EQ(run.plan().privacy["noise"]["gamma_scale"].get<double>(), 0.3);
}

void expect_refused(const TrainingConfig& c) {
  try {
    distributed::check(c);
    ADD_FAILURE() << c.algorithm << " was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotImplemented) << e.what();  // SQLSTATE 0A000
    EXPECT_NE(std::string(e.what()).find("cannot train on a distributed table"), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(DistributedCheck, TheAlgorithmsThatTrainOnShardsAreExactSumsAndPerShardEpochs) {
  EXPECT_EQ(algorithms_that(&Algorithm::trains_on_shards),
            (std::vector<std::string>{"none", "bolton", "amp", "optimum", "pfw", "dpagd"}));
  // Each algorithm's refusal hint names them.
  TrainingConfig c = sharded("scs13");
  c.delta = 1e-6;
  try {
    distributed::check(c);
    ADD_FAILURE() << "scs13 was not refused";
  } catch (const Error& e) {
    EXPECT_NE(e.hint().find("none, bolton, amp, optimum, pfw, dpagd"), std::string::npos) << e.hint();
  }
}

TEST(DistributedCheck, RefusesNoisePerBatchSampledRowsAveragingAndTolerance) {
  for (const char* name : {"scs13", "bst14", "dpsgd", "dpadam", "opdisc"}) {
    TrainingConfig c = sharded(name);
    c.delta = 1e-6;
    c.learning_rate.reset();
    expect_refused(c);
  }
  TrainingConfig avg = sharded();
  avg.averaging = true;
  expect_refused(avg);
  TrainingConfig tol = sharded();
  tol.learning_rate.reset();
  tol.lambda = 0.01;
  tol.options = {{"tolerance", 0.01}};
  expect_refused(tol);
  EXPECT_NO_THROW(distributed::check(sharded()));
  TrainingConfig amp = sharded("amp");
  amp.learning_rate.reset();
  amp.delta = 1e-6;
  EXPECT_NO_THROW(distributed::check(amp));
}

TEST(DistributedDescribe, ExactSumsKeepTheAlgorithmsRelationPerShardPsgdStatesItsAssumption) {
  // Per-shard PSGD: its bound is a function of the shard sizes, public only
  // if a replaced row keeps its key (docs/distributed.md section 2).
  Model psgd;
  distributed::annotate(psgd, sharded());
  const nlohmann::json& d = psgd.details["data"]["distribution"];
  EXPECT_TRUE(d.contains("assumption"));
  EXPECT_NE(d["adjacency"].get<std::string>().find("keeping the row's distribution key"), std::string::npos);
  // DP-AGD's passes are exact sums: its own add/remove-one relation stands,
  // and the metadata must not claim the weaker keep-the-key relation for it.
  Model sums;
  distributed::annotate(sums, sharded("dpagd"));
  const nlohmann::json& e = sums.details["data"]["distribution"];
  EXPECT_FALSE(e.contains("assumption"));
  EXPECT_NE(e["adjacency"].get<std::string>().find("privacy.adjacency"), std::string::npos);
  EXPECT_EQ(e["shard_rows"], sharded("dpagd").shard_rows);
}

TEST(DistributedPassSql, EpochsAreShuffledOnTheShardsAndSumsRunAsOnAPlainTable) {
  const distributed::Source src{"public.t", "X", "Y", "id::pg_catalog.int8", ""};
  Pass p;
  p.kind = PassKind::SgdEpoch;
  p.shuffle_key = {1, 2, 3, 4294967295.0};
  p.local_passes = 3;
  EXPECT_EQ(distributed::pass_sql(p, src),
            "SELECT dptrain.sgd_epoch(s.x, s.y, $1::pg_catalog.float8[]) FROM (SELECT X AS x, Y AS y FROM public.t "
            "CROSS JOIN pg_catalog.generate_series(1, 3) AS dptrain_pass(p) ORDER BY dptrain_pass.p, "
            "dptrain.shuffle_key(id::pg_catalog.int8, '{1,2,3,4294967295}'::pg_catalog.float8[])) s");
  p.local_passes = 1;
  EXPECT_EQ(distributed::pass_sql(p, src),
            "SELECT dptrain.sgd_epoch(s.x, s.y, $1::pg_catalog.float8[]) FROM (SELECT X AS x, Y AS y FROM public.t "
            "ORDER BY dptrain.shuffle_key(id::pg_catalog.int8, '{1,2,3,4294967295}'::pg_catalog.float8[])) s");
  p.kind = PassKind::GradientLoss;
  EXPECT_EQ(distributed::pass_sql(p, src), "SELECT dptrain.gradient_sum(X, Y, $1::pg_catalog.float8[]) FROM public.t");
  // The shard guard is a scan qualifier of the source in every pass (before
  // the ORDER BY, after the CROSS JOIN of the local passes).
  distributed::Source guarded = src;
  guarded.guard = "G(tableoid)";
  EXPECT_EQ(distributed::pass_sql(p, guarded),
            "SELECT dptrain.gradient_sum(X, Y, $1::pg_catalog.float8[]) FROM public.t WHERE G(tableoid)");
  p.kind = PassKind::Evaluate;
  EXPECT_EQ(distributed::pass_sql(p, guarded),
            "SELECT dptrain.evaluate_agg(X, (Y)::pg_catalog.int4, $1::pg_catalog.float8[]) FROM public.t WHERE G(tableoid)");
  p.kind = PassKind::SgdEpoch;
  EXPECT_EQ(distributed::pass_sql(p, guarded),
            "SELECT dptrain.sgd_epoch(s.x, s.y, $1::pg_catalog.float8[]) FROM (SELECT X AS x, Y AS y FROM public.t "
            "WHERE G(tableoid) ORDER BY dptrain.shuffle_key(id::pg_catalog.int8, '{1,2,3,4294967295}'::pg_catalog.float8[])) s");
  p.local_passes = 2;
  EXPECT_EQ(distributed::pass_sql(p, guarded),
            "SELECT dptrain.sgd_epoch(s.x, s.y, $1::pg_catalog.float8[]) FROM (SELECT X AS x, Y AS y FROM public.t "
            "CROSS JOIN pg_catalog.generate_series(1, 2) AS dptrain_pass(p) WHERE G(tableoid) ORDER BY dptrain_pass.p, "
            "dptrain.shuffle_key(id::pg_catalog.int8, '{1,2,3,4294967295}'::pg_catalog.float8[])) s");
  p.kind = PassKind::Split;
  EXPECT_THROW(distributed::pass_sql(p, src), Error);
  p.kind = PassKind::SgdEpoch;
  p.shuffle_key.clear();
  EXPECT_THROW(distributed::pass_sql(p, src), Error);
}

// A pass over a part of a keyed tuning split (docs/tuning.md section 5)
// reads the part where the rows are: the part filter joins the guard.
TEST(DistributedPassSql, APartOfAKeyedSplitIsAFilterOnTheShards) {
  distributed::Source src{"public.t", "X", "Y", "id::pg_catalog.int8", "G(tableoid)"};
  Pass p;
  p.kind = PassKind::Evaluate;
  p.table = 3;
  p.parts = 3;
  p.split_key = {5, 6, 7, 8};
  const std::string filter =
      "dptrain.tuning_part(id::pg_catalog.int8, '{5,6,7,8}'::pg_catalog.float8[], 3) OPERATOR(pg_catalog.=) ";
  EXPECT_EQ(distributed::pass_sql(p, src),
            "SELECT dptrain.evaluate_agg(X, (Y)::pg_catalog.int4, $1::pg_catalog.float8[]) FROM public.t WHERE "
            "G(tableoid) AND " + filter + "3");
  p.kind = PassKind::GradientLoss;
  p.table = 1;
  EXPECT_EQ(distributed::pass_sql(p, src),
            "SELECT dptrain.gradient_sum(X, Y, $1::pg_catalog.float8[]) FROM public.t WHERE G(tableoid) AND " + filter + "1");
  p.kind = PassKind::SgdEpoch;
  p.table = 2;
  p.shuffle_key = {1, 2, 3, 4};
  p.local_passes = 2;
  EXPECT_EQ(distributed::pass_sql(p, src),
            "SELECT dptrain.sgd_epoch(s.x, s.y, $1::pg_catalog.float8[]) FROM (SELECT X AS x, Y AS y FROM public.t "
            "CROSS JOIN pg_catalog.generate_series(1, 2) AS dptrain_pass(p) WHERE G(tableoid) AND " + filter +
                "2 ORDER BY dptrain_pass.p, dptrain.shuffle_key(id::pg_catalog.int8, '{1,2,3,4}'::pg_catalog.float8[])) s");
  // Without a guard (a test source), the filter alone.
  src.guard.clear();
  p.local_passes = 1;
  EXPECT_EQ(distributed::pass_sql(p, src),
            "SELECT dptrain.sgd_epoch(s.x, s.y, $1::pg_catalog.float8[]) FROM (SELECT X AS x, Y AS y FROM public.t WHERE " +
                filter + "2 ORDER BY dptrain.shuffle_key(id::pg_catalog.int8, '{1,2,3,4}'::pg_catalog.float8[])) s");
  // A part without its split key, or outside 1..parts, or without a row key: an internal error.
  Pass bad = p;
  bad.split_key.clear();
  EXPECT_THROW(distributed::pass_sql(bad, src), Error);
  bad = p;
  bad.table = 4;
  EXPECT_THROW(distributed::pass_sql(bad, src), Error);
  distributed::Source keyless = src;
  keyless.row_key.clear();
  EXPECT_THROW(distributed::pass_sql(p, keyless), Error);
}

TEST(DistributedPassInput, AGradientPassSendsItsRequestAloneOtherPassesTheirInput) {
  gradient_state::Request r;
  r.dim = 4;
  r.want = gradient_state::kLossSums | gradient_state::kGradient | gradient_state::kHessian;
  const std::vector<double> w{1, 2, 3, 4};
  Pass p;
  p.kind = PassKind::GradientLoss;
  p.input = gradient_state::make_state(r, w.data());
  const std::vector<double> full = p.input;
  const std::vector<double> sent = distributed::pass_input(p);
  // 16 + d = 20 values instead of 16 + d + 2 + 2d + d^2 = 46.
  EXPECT_EQ(full.size(), 46u);
  EXPECT_EQ(sent.size(), 20u);
  EXPECT_EQ(sent, gradient_state::request_only(full.data(), full.size()));
  EXPECT_EQ(gradient_state::state_from_request(sent.data(), sent.size()), full);
  p.kind = PassKind::SgdEpoch;
  p.input = {1, 2, 3};
  EXPECT_EQ(distributed::pass_input(p), (std::vector<double>{1, 2, 3}));
}

// A whole distributed run in memory: every epoch pass is executed as Citus
// would (each shard's rows ordered by shuffle_key(row id, epoch key), P
// times, then combined), and the run checks counters and releases.
struct Table {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  std::vector<std::vector<int>> shards;  // row indices (= row keys) per shard
};

Table table() {
  Table t;
  t.shards.resize(4);
  for (int i = 0; i < 1000; ++i) {
    t.x.push_back({0.7 * std::cos(i * 0.37), 0.7 * std::sin(i * 1.1)});
    t.y.push_back(t.x.back()[0] + 0.3 * t.x.back()[1] > 0 ? 1.0 : 0.0);
    t.shards[static_cast<std::size_t>(i % 4)].push_back(i);
  }
  return t;
}

Model run_in_memory(const TrainingConfig& c, const Table& t, std::vector<std::vector<double>>* keys) {
  EpochRun run(c);
  const epoch_state::ShardedRows rows{&t.x, &t.y};
  while (std::optional<Pass> p = run.next()) {
    EXPECT_EQ(p->kind, PassKind::SgdEpoch);  // no reshuffle passes on shards
    keys->push_back(p->shuffle_key);
    const sgd::EpochShuffleKey key = sgd::epoch_key_from_words(p->shuffle_key.data(), p->shuffle_key.size());
    std::vector<std::vector<int>> streams;
    for (std::vector<int> shard : t.shards) {
      std::sort(shard.begin(), shard.end(),
                [&](int a, int b) { return sgd::shuffle_key(a, key) < sgd::shuffle_key(b, key); });
      std::vector<int> stream;
      for (int pass = 0; pass < p->local_passes; ++pass) stream.insert(stream.end(), shard.begin(), shard.end());
      streams.push_back(stream);
    }
    const std::vector<double> state = epoch_state::sharded_epoch(p->input, rows, streams);
    run.accept(state.data(), state.size());
  }
  return run.release(0.0);
}

TEST(DistributedEpochRun, RunsPerShardEpochsAndReproducesFromTheSeed) {
  TrainingConfig c = sharded();
  c.learning_rate = 1.0;
  c.epochs = 3;
  const Table t = table();
  std::vector<std::vector<double>> keys1, keys2, keys3;
  const Model a = run_in_memory(c, t, &keys1);
  const Model b = run_in_memory(c, t, &keys2);
  ASSERT_EQ(keys1.size(), 3u);
  EXPECT_EQ(keys1, keys2);
  EXPECT_NE(keys1[0], keys1[1]);  // a fresh order every epoch
  EXPECT_EQ(a.weights, b.weights);
  c.seed = 6;
  const Model other = run_in_memory(c, t, &keys3);
  EXPECT_NE(keys1[0], keys3[0]);
  EXPECT_NE(a.weights, other.weights);
  // Shard step 4 * 1 > 2/beta = 2: two passes at 2, U = ceil(2 * 250 / 10).
  EXPECT_EQ(a.details["privacy"]["distributed"]["local_passes"], 2);
  EXPECT_EQ(a.details["privacy"]["distributed"]["updates_per_epoch"], 50);
  EXPECT_EQ(a.details["data"]["distribution"]["distribution_column"], "id");
}

// The shards of `t` as a writer leaves them after deleting a row of shard
// `from` and inserting a row (a new key) that lands in shard `to`: the same
// n, and (here) the same largest shard.
Table moved_row(Table t, std::size_t from, std::size_t to) {
  const int row = t.shards[from].back();
  t.shards[from].pop_back();
  t.shards[to].push_back(row);
  return t;
}

// The epochs of `c` over `t`, the table rewritten (`rewritten`) before epoch
// `rewrite_at`; the error of the run, if any.
std::optional<Error> run_with_rewrite(const TrainingConfig& c, const Table& t, const Table& rewritten, int rewrite_at) {
  EpochRun run(c);
  int epoch = 0;
  try {
    while (std::optional<Pass> p = run.next()) {
      const Table& now = epoch >= rewrite_at ? rewritten : t;
      const sgd::EpochShuffleKey key = sgd::epoch_key_from_words(p->shuffle_key.data(), p->shuffle_key.size());
      std::vector<std::vector<int>> streams;
      for (std::vector<int> shard : now.shards) {
        std::sort(shard.begin(), shard.end(),
                  [&](int a, int b) { return sgd::shuffle_key(a, key) < sgd::shuffle_key(b, key); });
        std::vector<int> stream;
        for (int pass = 0; pass < p->local_passes; ++pass) stream.insert(stream.end(), shard.begin(), shard.end());
        streams.push_back(stream);
      }
      const std::vector<double> state = epoch_state::sharded_epoch(p->input, {&now.x, &now.y}, streams);
      run.accept(state.data(), state.size());
      ++epoch;
    }
    run.release(0.0);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

TEST(DistributedEpochRun, RefusesAnEpochWhoseShardCountsChangedWithTheSameTotals) {
  // Shards of 260, 250, 250, 240 rows (n = 1000), planned from these counts.
  Table t = table();
  for (int i = 0; i < 10; ++i) t = moved_row(std::move(t), 3, 0);
  TrainingConfig c = sharded();
  c.shard_rows = {260, 250, 250, 240};
  c.epochs = 3;
  ASSERT_EQ(t.shards[0].size(), 260u);
  ASSERT_EQ(t.shards[3].size(), 240u);
  EXPECT_FALSE(run_with_rewrite(c, t, t, 0).has_value());  // unchanged: trains
  // Delete a row of shard 2, insert one that lands in shard 4: 260, 249,
  // 250, 241. P n rows and U = ceil(P 260 / b) updates as planned, so the
  // totals checks pass; the multiset of counts does not.
  const Table rewritten = moved_row(t, 1, 3);
  for (int at : {0, 2}) {
    const std::optional<Error> e = run_with_rewrite(c, t, rewritten, at);
    ASSERT_TRUE(e.has_value()) << "rewrite before epoch " << at + 1 << " not seen";
    EXPECT_STREQ(e->what(), "the shards of the table changed during training");
    EXPECT_EQ(e->sqlstate(), "DP003");
    EXPECT_EQ(e->hint().find("Was the table modified during training?"), 0u);
    // It names no count (a role without read access learns that the table changed, no more).
    EXPECT_EQ(e->detail().find_first_of("0123456789"), std::string::npos);
  }
  // The same multiset on other shards (260 and 250 swap places): the bound
  // is the same, and the run goes on.
  Table swapped = t;
  std::swap(swapped.shards[0], swapped.shards[1]);
  EXPECT_FALSE(run_with_rewrite(c, t, swapped, 1).has_value());
  // A row deleted (the total changes): the totals check, the same SQLSTATE.
  Table fewer = t;
  fewer.shards[2].pop_back();
  const std::optional<Error> e = run_with_rewrite(c, t, fewer, 1);
  ASSERT_TRUE(e.has_value());
  EXPECT_STREQ(e->what(), "the epoch did not see every row exactly once");
  EXPECT_EQ(e->sqlstate(), "DP003");
}

TEST(DistributedEpochRun, RefusesAnEpochWithTheWrongCounts) {
  const TrainingConfig c = sharded();
  EpochRun run(c);
  std::optional<Pass> p = run.next();
  ASSERT_TRUE(p);
  std::vector<double> r = p->input;
  r[epoch_state::kRows] = 1000;  // one pass seen, two planned (eta 0.75: P = 2)
  r[epoch_state::kUpdates] += 50;
  EXPECT_THROW(run.accept(r.data(), r.size()), Error);
}

}  // namespace
}  // namespace dptrain

namespace dptrain {
namespace {

TEST(DistributedMetadata, ARoleWithoutReadAccessSeesTheLargestShardOnly) {
  // Shard sizes 5, 9, 7 (n = 21): every size would be a histogram of the
  // distribution column; the count and the largest (which the shard step
  // c eta / P with c = n / max_s n_s reveals anyway) are what remains.
  Model m;
  m.details = {{"data", {{"distribution", {{"shard_rows", {5, 9, 7}}, {"distribution_column", "id"}}}}}};
  distributed::redact_shard_rows(m);
  const nlohmann::json& d = m.details["data"]["distribution"];
  EXPECT_FALSE(d.contains("shard_rows"));
  EXPECT_EQ(d["shards"].get<int>(), 3);
  EXPECT_EQ(d["largest_shard_rows"].get<int>(), 9);
  EXPECT_EQ(d["distribution_column"], "id");
  Model plain;  // nothing distributed: nothing to redact
  plain.details = {{"data", {{"rows", 21}}}};
  distributed::redact_shard_rows(plain);
  EXPECT_EQ(plain.details["data"], nlohmann::json({{"rows", 21}}));
}

TEST(DistributedEpochRun, TheReleasedModelRecordsTheBoundItsNoiseIsCalibratedTo) {
  TrainingConfig c = sharded();
  c.learning_rate.reset();
  c.lambda = 0.01;
  const Table t = table();
  std::vector<std::vector<double>> keys;
  const Model m = run_in_memory(c, t, &keys);
  const nlohmann::json& d = m.details["privacy"]["distributed"];
  const double shard = d["sensitivity"].get<double>();
  EXPECT_DOUBLE_EQ(d["noise_calibrated_to"].get<double>(), shard);
  EXPECT_DOUBLE_EQ(m.details["privacy"]["sensitivity"].get<double>(), shard);
  EXPECT_DOUBLE_EQ(m.details["privacy"]["noise"]["gamma_scale"].get<double>(), shard / 1.0);
  EXPECT_DOUBLE_EQ(d["sequential_sensitivity"].get<double>(),
                   make_algorithm("bolton")->plan(c).privacy["sensitivity"].get<double>());
  EXPECT_LT(shard, d["sequential_sensitivity"].get<double>());
  EXPECT_NE(d["note"].get<std::string>().find("per-shard PSGD bound, smaller than the sequential"), std::string::npos);
  // The convex constant step: equal bounds, no re-calibration recorded.
  const Model convex = run_in_memory(sharded(), t, &keys);
  EXPECT_FALSE(convex.details["privacy"]["distributed"].contains("sequential_sensitivity"));
  EXPECT_NE(convex.details["privacy"]["distributed"]["note"].get<std::string>().find("equal to the sequential"),
            std::string::npos);
}

}  // namespace
}  // namespace dptrain
