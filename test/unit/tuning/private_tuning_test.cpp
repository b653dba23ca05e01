#include "core/tuning/private_tuning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/packed_model.h"
#include "core/algorithms/algorithm.h"
#include "core/engine/in_memory.h"
#include "core/sgd/epoch_state.h"

namespace dptrain::tuning {
namespace {

TrainingConfig base_config(std::int64_t rows) {
  TrainingConfig c;
  c.algorithm = "bolton";
  c.epsilon = 1.0;
  c.rows = rows;
  c.dim = 3;
  c.classes = {"neg", "pos"};
  return c;
}

// The plan candidate i of `t` trains with.
TrainingPlan start_candidate_plan(const Tuner& t, int i) {
  return make_algorithm(t.candidate_config(i).algorithm)->plan(t.candidate_config(i));
}

TEST(TuningGrid, DefaultGridIsNineCandidatesLambdaMajor) {
  const std::vector<Candidate> c = expand(Grid{});
  ASSERT_EQ(c.size(), 9u);
  EXPECT_EQ(c[0].lambda, 1e-4);
  EXPECT_EQ(c[0].epochs, 1);
  EXPECT_EQ(c[1].epochs, 5);
  EXPECT_EQ(c[2].epochs, 10);
  EXPECT_EQ(c[3].lambda, 1e-3);
  EXPECT_EQ(c[8].lambda, 1e-2);
  EXPECT_EQ(c[8].epochs, 10);
  for (const Candidate& k : c) EXPECT_EQ(k.batch_size, 50);
  Grid g;
  g.batch_sizes = {10, 50};
  EXPECT_EQ(expand(g).size(), 18u);
}

TEST(TuningGrid, RejectsBadGrids) {
  Grid g;
  g.lambdas = {};
  EXPECT_THROW(expand(g), Error);
  g = Grid{};
  g.lambdas = {1e-3, 1e-3};
  EXPECT_THROW(expand(g), Error);
  g = Grid{};
  g.lambdas = {-1e-3};
  EXPECT_THROW(expand(g), Error);
  g = Grid{};
  g.lambdas = {NAN};
  EXPECT_THROW(expand(g), Error);
  g = Grid{};
  g.epochs = {0};
  EXPECT_THROW(expand(g), Error);
  g = Grid{};
  g.batch_sizes = {0};
  EXPECT_THROW(expand(g), Error);
  g = Grid{};
  g.lambdas.resize(0);
  for (int i = 0; i < 11; ++i) g.lambdas.push_back(i * 1e-3);
  g.epochs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // 110 candidates
  EXPECT_THROW(expand(g), Error);
}

TEST(TuningSplit, PartSizesDealRowsByPosition) {
  // Row r goes to part r mod P: 10 rows in 3 parts -> rows {0,3,6,9}, {1,4,7}, {2,5,8}.
  EXPECT_EQ(part_sizes(10, 3), (std::vector<std::int64_t>{4, 3, 3}));
  EXPECT_EQ(part_sizes(9, 3), (std::vector<std::int64_t>{3, 3, 3}));
  EXPECT_EQ(part_sizes(3, 3), (std::vector<std::int64_t>{1, 1, 1}));
  // Adult without missing values: 30162 = 10 * 3016 + 2 -> two parts of 3017, eight of 3016.
  const std::vector<std::int64_t> adult = part_sizes(30162, 10);
  EXPECT_EQ(adult[0], 3017);
  EXPECT_EQ(adult[1], 3017);
  for (int p = 2; p < 10; ++p) EXPECT_EQ(adult[p], 3016);
  EXPECT_EQ(std::accumulate(adult.begin(), adult.end(), std::int64_t{0}), 30162);
  EXPECT_THROW(part_sizes(2, 3), Error);
  EXPECT_THROW(part_sizes(10, 0), Error);
}

TEST(Tuner, CandidatesUseThePartSizeForEverySensitivity) {
  // n = 1000 rows, default grid: l = 9 candidates, 10 parts of 100 rows.
  Tuner t(base_config(1000), Grid{});
  EXPECT_EQ(t.candidates(), 9);
  EXPECT_EQ(t.parts(), 10);
  EXPECT_EQ(t.held_out_part(), 10);  // pass tables number the parts 1..10
  EXPECT_EQ(t.part_rows(), std::vector<std::int64_t>(10, 100));
  // Candidate 8: lambda = 1e-2, 10 epochs, b = 50 on m_i = 100 rows (logistic,
  // R = 1/lambda = 100, L = 1 + lambda R = 2, beta = 1 + lambda = 1.01, U = 2,
  // T = 20 < beta/gamma = 101 so every step is 1/beta): Lemma 8
  //   Delta = min(2kL/(b beta), 2L/(gamma b U)) = min(40/50.5, 4/(0.01*50*2)) = 0.79207921.
  // On the whole table (U = 20) it would be min(0.792, 4/(0.01*50*20) = 0.4) = 0.4:
  // using n instead of m_i would add half the noise needed.
  const TrainingConfig& c8 = t.candidate_config(8);
  EXPECT_EQ(c8.rows, 100);
  EXPECT_EQ(c8.lambda, 1e-2);
  EXPECT_EQ(c8.epochs, 10);
  EXPECT_NEAR(start_candidate_plan(t, 8).privacy["sensitivity"].get<double>(), 40.0 / 50.5, 1e-12);

  // A convex candidate (lambda = 0, 5 epochs, b = 50) on m_i = 100 rows: eta =
  // min(1/sqrt(100), 2/beta) = 0.1, Delta = 2 k L eta / b = 2*5*1*0.1/50 = 0.02 (Cor. 1).
  Grid g;
  g.lambdas = {0.0};
  g.epochs = {5};
  Tuner convex(base_config(1000), g);
  EXPECT_EQ(convex.part_rows(), (std::vector<std::int64_t>{500, 500}));
  // With one candidate there are 2 parts of 500: eta = 1/sqrt(500), Delta = 10/sqrt(500)/50.
  EXPECT_NEAR(start_candidate_plan(convex, 0).privacy["sensitivity"].get<double>(), 10.0 / std::sqrt(500.0) / 50.0, 1e-15);
  Grid g9 = Grid{};
  g9.lambdas = {0.0, 1e-3, 1e-2};
  g9.epochs = {1, 5, 10};
  Tuner nine(base_config(1000), g9);
  EXPECT_NEAR(start_candidate_plan(nine, 1).privacy["sensitivity"].get<double>(), 0.02, 1e-15);
}

TEST(Tuner, SeedsAreDistinctPerCandidate) {
  TrainingConfig c = base_config(1000);
  c.seed = 40;
  Tuner t(c, Grid{});
  for (int i = 0; i < t.candidates(); ++i) EXPECT_EQ(*t.candidate_config(i).seed, 41 + i);
  Tuner secure(base_config(1000), Grid{});
  EXPECT_FALSE(secure.candidate_config(0).seed.has_value());
}

TEST(Tuner, RejectsWhatCannotBeTunedPrivately) {
  TrainingConfig none = base_config(1000);
  none.algorithm = "none";
  none.epsilon.reset();
  EXPECT_THROW(Tuner(none, Grid{}), Error);
  TrainingConfig no_eps = base_config(1000);
  no_eps.epsilon.reset();
  EXPECT_THROW(Tuner(no_eps, Grid{}), Error);
  TrainingConfig unknown = base_config(1000);
  unknown.algorithm = "nope";
  EXPECT_THROW(Tuner(unknown, Grid{}), Error);
  // 300 rows in 10 parts of 30 < b = 50.
  try {
    Tuner(base_config(300), Grid{});
    FAIL() << "accepted parts smaller than the batch size";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the 30 rows of a tuning part"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Tuner(base_config(5), Grid{}), Error);  // fewer rows than parts
  // A candidate whose plan fails names the candidate.
  TrainingConfig lr = base_config(1000);
  lr.learning_rate = 5.0;  // > 2/beta for the convex candidate
  Grid g;
  g.lambdas = {0.0};
  try {
    Tuner(lr, g);
    FAIL() << "accepted eta > 2/beta";
  } catch (const Error& e) {
    EXPECT_NE(e.detail().find("tuning candidate lambda = 0, epochs = 1"), std::string::npos) << e.detail();
  }
}

// --- end to end in memory ----------------------------------------------------------

InMemoryData separable(int m, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g;
  InMemoryData t;
  for (int i = 0; i < m; ++i) {
    std::vector<double> x = {g(gen), g(gen), 0.3};
    const double norm = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (double& v : x) v /= norm;
    t.y.push_back(x[0] - 0.5 * x[1] + 0.2 * g(gen) > 0 ? 1.0 : 0.0);
    t.x.push_back(x);
  }
  return t;
}

struct TuningRun {
  Model model;
  std::vector<std::int64_t> errors;  // recomputed independently of the tuner
  int chosen;
};

// The parts of `table` as dptrain.training_split deals them (the table is
// already in random order).
std::vector<InMemoryData> deal(const InMemoryData& table, int parts) {
  std::vector<InMemoryData> out(static_cast<std::size_t>(parts));
  for (std::int64_t r = 0; r < table.rows(); ++r) {
    InMemoryData& p = out[static_cast<std::size_t>(r % parts)];
    p.x.push_back(table.x[static_cast<std::size_t>(r)]);
    p.y.push_back(table.y[static_cast<std::size_t>(r)]);
  }
  return out;
}

// The whole of Algorithm 3 in memory, driven like dp_tune drives it in SQL;
// every candidate's held-out errors are recomputed here from its own run.
TuningRun tune_in_memory(const InMemoryData& table, TrainingConfig c, const Grid& grid) {
  c.rows = table.rows();
  c.dim = table.dim();
  Tuner t(c, grid);
  TuningRun run;
  run.model = drive_in_memory(t, table);
  run.chosen = t.chosen();
  const std::vector<InMemoryData> parts = deal(table, t.parts());
  const InMemoryData& held_out = parts.back();
  for (int i = 0; i < t.candidates(); ++i) {
    EXPECT_EQ(parts[i].rows(), t.part_rows()[i]);
    std::unique_ptr<Run> candidate = t.start_candidate(i);
    const std::vector<double> packed = packed_model::pack(drive_in_memory(*candidate, parts[i]));
    std::vector<double> totals(evaluation::totals_size(2), 0.0);
    for (std::int64_t r = 0; r < held_out.rows(); ++r)
      packed_model::accumulate(packed.data(), held_out.x[r].data(), held_out.dim(), static_cast<int>(held_out.y[r]),
                               totals.data());
    run.errors.push_back(held_out.rows() - static_cast<std::int64_t>(totals[1]));
  }
  return run;
}

TEST(Tuner, EndToEndInMemoryRecordsTheTotalPrivacyAndNoScores) {
  const InMemoryData table = separable(3000, 1);
  TrainingConfig c = base_config(0);
  c.epsilon = 0.5;
  c.delta = 1e-8;
  c.seed = 9;
  c.name = "tuned";
  Grid g;
  g.lambdas = {0.0, 1e-3};
  g.epochs = {1, 5};
  const TuningRun r = tune_in_memory(table, c, g);
  const Model& m = r.model;
  EXPECT_EQ(m.name, "tuned");
  EXPECT_EQ(*m.epsilon, 0.5);  // parallel composition: the candidates' budget, spent once
  EXPECT_EQ(*m.delta, 1e-8);
  EXPECT_TRUE(m.seeded);
  const auto& d = m.details;
  EXPECT_EQ(d["privacy"]["epsilon"], 0.5);
  EXPECT_EQ(d["privacy"]["selection"]["score_sensitivity"], 1);
  EXPECT_EQ(d["privacy"]["selection"]["held_out_rows"], 600);
  EXPECT_EQ(d["privacy"]["candidate"]["epsilon"], 0.5);
  EXPECT_EQ(d["tuning"]["candidates"], 4);
  EXPECT_EQ(d["tuning"]["part_rows"], (std::vector<std::int64_t>{600, 600, 600, 600, 600}));
  EXPECT_EQ(d["tuning"]["chosen"]["index"], r.chosen);
  EXPECT_EQ(d["tuning"]["chosen"]["lambda"], g.lambdas[r.chosen / 2]);
  EXPECT_EQ(d["hyperparameters"]["lambda"], g.lambdas[r.chosen / 2]);
  EXPECT_EQ(d["hyperparameters"]["epochs"], g.epochs[r.chosen % 2]);
  EXPECT_EQ(d["data"]["rows"], 3000);
  EXPECT_EQ(d["data"]["training_rows"], 600);
  EXPECT_EQ(d["seed"], 9);
  // The held-out error counts are not differentially private: never recorded.
  const std::string dump = d.dump();
  EXPECT_EQ(dump.find("errors\":"), std::string::npos);
  // Reproducible with the seed.
  const TuningRun again = tune_in_memory(table, c, g);
  EXPECT_EQ(again.chosen, r.chosen);
  EXPECT_EQ(again.model.weights, m.weights);
}

TEST(Tuner, LargeEpsilonPicksTheBestCandidate) {
  // epsilon = 2000: a candidate with k more errors is e^(1000 k) times less
  // likely, so the selection is the argmin (any of the tied best).
  const InMemoryData table = separable(3000, 2);
  TrainingConfig c = base_config(0);
  c.epsilon = 2000;
  for (int seed = 1; seed <= 3; ++seed) {
    c.seed = seed;
    const TuningRun r = tune_in_memory(table, c, Grid{});
    EXPECT_EQ(r.errors[r.chosen], *std::min_element(r.errors.begin(), r.errors.end()));
  }
}

TEST(Tuner, AsksForASplitThenEveryCandidateThenItsEvaluation) {
  TrainingConfig c = base_config(1000);
  Grid g;
  g.lambdas = {0.0};
  g.epochs = {1, 2};
  Tuner t(c, g);  // 3 parts: 334, 333, 333
  EXPECT_THROW(t.release(0), Error);  // nothing done
  std::optional<Pass> split = t.next();
  ASSERT_TRUE(split);
  EXPECT_EQ(split->kind, PassKind::Split);
  EXPECT_EQ(split->parts, 3);
  const std::vector<double> wrong = {334, 333, 334};
  EXPECT_THROW(t.accept(wrong.data(), wrong.size()), Error);  // not the planned sizes

  Tuner u(c, g);
  u.next();
  const std::vector<double> sizes = {334, 333, 333};
  u.accept(sizes.data(), sizes.size());
  std::vector<std::pair<PassKind, int>> seen;
  while (std::optional<Pass> p = u.next()) {
    seen.emplace_back(p->kind, p->table);
    std::vector<double> r = p->input;
    if (p->kind == PassKind::SgdEpoch) {
      r[epoch_state::kRows] = static_cast<double>(u.part_rows()[p->table - 1]);
      r[epoch_state::kUpdates] += std::ceil(u.part_rows()[p->table - 1] / 50.0);
    } else {
      ASSERT_EQ(p->kind, PassKind::Evaluate);
      EXPECT_EQ(p->table, 3);  // the held-out part
      r = {333, 300, 10};
    }
    u.accept(r.data(), r.size());
  }
  // Candidate 1 (1 epoch) on part 1, candidate 2 (2 epochs) on part 2, each then scored on part 3.
  EXPECT_EQ(seen, (std::vector<std::pair<PassKind, int>>{{PassKind::SgdEpoch, 1},
                                                          {PassKind::Evaluate, 3},
                                                          {PassKind::SgdEpoch, 2},
                                                          {PassKind::SgdEpoch, 2},
                                                          {PassKind::Evaluate, 3}}));
  const std::vector<Progress> msgs = u.take_progress();
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(msgs[2].message, "candidate 2 of 2: epoch 2 of 2 done");
  EXPECT_EQ(u.progress_done(), 3);
  EXPECT_EQ(u.progress_total(), 3);
  EXPECT_NO_THROW(u.release(0));
  EXPECT_THROW(u.release(0), Error);  // twice
}

}  // namespace
}  // namespace dptrain::tuning
