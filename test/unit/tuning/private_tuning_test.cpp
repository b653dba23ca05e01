#include "core/tuning/private_tuning.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/packed_model.h"
#include "core/algorithms/algorithm.h"
#include "core/engine/distributed.h"
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
  for (int i = 0; i < t.candidates(); ++i)
    EXPECT_EQ(*t.candidate_config(i).seed, candidate_seed(40, static_cast<std::uint64_t>(i)));
  Tuner secure(base_config(1000), Grid{});
  EXPECT_FALSE(secure.candidate_config(0).seed.has_value());
}

// SplitMix64's published first output from state 0 is mix64(golden gamma).
TEST(CandidateSeed, FinalizerIsSplitMix64) {
  EXPECT_EQ(mix64(0x9e3779b97f4a7c15ULL), 0xe220a8397b1dcdafULL);
}

// The searches of neighbouring seeds share no candidate seed, and no
// candidate reuses a search seed (seed + 1 + i did both: search 1's second
// candidate was search 2's first).
TEST(CandidateSeed, SearchesOfDifferentSeedsShareNoCandidate) {
  std::set<std::int64_t> seen;
  for (std::int64_t search = -5; search <= 60; ++search) seen.insert(search);
  std::size_t drawn = seen.size();
  for (std::int64_t search = -5; search <= 60; ++search)
    for (std::uint64_t i = 0; i < 30; ++i) {
      seen.insert(candidate_seed(search, i));
      ++drawn;
    }
  EXPECT_EQ(seen.size(), drawn);
  EXPECT_EQ(candidate_seed(7, 3), candidate_seed(7, 3));  // reproducible
}

// The default batch 50 becomes min(50, floor(n / parts)): n and the grid's size are public.
TEST(Tuner, DefaultBatchFitsThePart) {
  Grid g;
  fit_default_batch(300, &g);  // 9 candidates: 10 parts of 30 rows
  EXPECT_EQ(g.batch_sizes, std::vector<std::int64_t>{30});
  Grid big;
  fit_default_batch(1000, &big);  // parts of 100 rows: the default stays
  EXPECT_EQ(big.batch_sizes, std::vector<std::int64_t>{50});
  Grid given;
  given.batch_sizes = {40, 60};
  given.batch_sizes_given = true;
  fit_default_batch(300, &given);  // given sizes are kept (and checked per part by the Tuner)
  EXPECT_EQ(given.batch_sizes, (std::vector<std::int64_t>{40, 60}));
  Grid given_50;  // the default's value, given: kept too (it was taken for the default and capped to 30)
  given_50.batch_sizes_given = true;
  fit_default_batch(300, &given_50);
  EXPECT_EQ(given_50.batch_sizes, std::vector<std::int64_t>{50});
  Grid tiny;
  fit_default_batch(5, &tiny);  // fewer rows than parts: at least 1 (the Tuner refuses the table)
  EXPECT_EQ(tiny.batch_sizes, std::vector<std::int64_t>{1});
  const Tuner t(base_config(300), Grid{});
  EXPECT_EQ(t.candidate(0).batch_size, 30);
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
  // 300 rows in 10 parts of 30 < b = 31 (given; the default 50 is capped: DefaultBatchFitsThePart).
  try {
    Grid g;
    g.batch_sizes = {31};
    g.batch_sizes_given = true;
    Tuner(base_config(300), g);
    FAIL() << "accepted parts smaller than the batch size";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the 30 rows of a tuning part (part 1 of 10)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Tuner(base_config(5), Grid{}), Error);  // fewer rows than parts
  // The selection's epsilon times the held-out rows (1000 / 10 = 100) overflows: 1e307 * 100 =
  // inf. Refused by the constructor (before the charge), not by the exponential mechanism
  // after every candidate ran.
  TrainingConfig huge = base_config(1000);
  huge.epsilon = 1e307;
  try {
    Tuner(huge, Grid{});
    FAIL() << "accepted epsilon 1e307";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("epsilon times the score range"), std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("score range = 100"), std::string::npos) << e.detail();
  }
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

// --- a Citus-distributed table: the keyed split (docs/tuning.md section 5) ---------

// A distributed table of 550 rows in 3 shards, split into 3 parts with
// hand-made counts rows[part][shard] (the sizes a keyed hash gave; any split
// independent of the contents is fine for the argument).
TrainingConfig distributed_config() {
  TrainingConfig c = base_config(550);
  c.shard_rows = {200, 200, 150};
  c.distribution_column = "id";
  return c;
}

KeyedSplit hand_split() {
  KeyedSplit k;
  std::iota(k.key.begin(), k.key.end(), 0);
  k.rows = {{120, 60, 20},   // part 1: m_1 = 200
            {50, 100, 50},   // part 2: m_2 = 200
            {30, 40, 80}};   // part 3, held out: m_3 = 150
  return k;
}

TEST(KeyedSplitTuner, PartSizesAreTheCountsAndMustCoverEveryShard) {
  const KeyedSplit k = hand_split();
  EXPECT_EQ(part_sizes(k, {200, 200, 150}, 3), (std::vector<std::int64_t>{200, 200, 150}));
  // A shard whose parts do not add up to its rows (the table changed between the counts).
  try {
    part_sizes(k, {200, 201, 150}, 3);
    FAIL() << "accepted counts that do not cover shard 2";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidData);
    EXPECT_NE(std::string(e.what()).find("parts of shard 2 hold 200 rows, the shard 201"), std::string::npos) << e.what();
  }
  EXPECT_THROW(part_sizes(k, {200, 200, 150}, 4), Error);  // 3 parts counted
  EXPECT_THROW(part_sizes(k, {200, 200}, 3), Error);       // 3 shards counted
  KeyedSplit negative = k;
  negative.rows[0][0] = -1;
  EXPECT_THROW(part_sizes(negative, {79, 200, 150}, 3), Error);
}

TEST(KeyedSplitTuner, EveryCandidateIsPlannedForItsOwnPartAndShardSizes) {
  // Convex candidates (lambda = 0), logistic loss with feature bound 1 (L = 1,
  // beta = 1 as this repository bounds it), 2 epochs, b = 10, constant step
  // eta = 1.5 (docs/distributed.md sections 2-3).
  TrainingConfig c = distributed_config();
  c.learning_rate = 1.5;
  Grid g;
  g.lambdas = {0.0};
  g.epochs = {2};
  g.batch_sizes = {10, 20};
  Tuner t(c, g, hand_split());
  EXPECT_EQ(t.part_rows(), (std::vector<std::int64_t>{200, 200, 150}));
  const TrainingConfig& c0 = t.candidate_config(0);
  EXPECT_EQ(c0.rows, 200);
  EXPECT_EQ(c0.shard_rows, (std::vector<std::int64_t>{120, 60, 20}));
  EXPECT_EQ(t.candidate_config(1).shard_rows, (std::vector<std::int64_t>{50, 100, 50}));
  // Candidate 0 on part 1 (n_{s,1} = 120, 60, 20; m_1 = 200), b = 10:
  //   c = m_1 / max_s n_{s,1} = 200/120 = 5/3; c eta = 2.5 > 2/beta = 2, so
  //   P = ceil(c eta beta / 2) = ceil(1.25) = 2 local passes at eta' = c eta / P = 1.25;
  //   U = max_s ceil(P n_{s,1} / b) = ceil(240/10) = 24 updates per epoch;
  //   Delta = k P (2 L eta' / b) max_s n_{s,1}/m_1 = 2 * 2 * (2 * 1.25 / 10) * 0.6 = 0.6
  //         = the sequential 2 k L eta / b = 2 * 2 * 1.5 / 10 = 0.6 for m_1 rows.
  // (With the table's shards, c = 550/200 = 2.75: P = 3, eta' = 1.375.)
  // The candidate's run asks for its epochs with those passes.
  EXPECT_EQ(t.start_candidate(0)->next()->local_passes, 2);
  const distributed::EpochPlan e0 = distributed::plan_epochs(c0, start_candidate_plan(t, 0));
  EXPECT_EQ(e0.local_passes, 2);
  EXPECT_NEAR(e0.schedule.eta, 1.25, 1e-11);
  EXPECT_EQ(e0.updates_per_epoch, 24);
  EXPECT_NEAR(e0.sensitivity, 0.6, 1e-12);
  EXPECT_NEAR(start_candidate_plan(t, 0).privacy["sensitivity"].get<double>(), 0.6, 1e-15);
  // Candidate 1 (b = 20) on part 2 (n_{s,2} = 50, 100, 50; m_2 = 200): c = 2,
  //   c eta = 3 > 2: P = ceil(1.5) = 2 at eta' = 1.5; U = ceil(2 * 100 / 20) = 10;
  //   Delta = 2 * 2 * (2 * 1.5 / 20) * 0.5 = 0.3 = 2 * 2 * 1.5 / 20.
  const distributed::EpochPlan e1 = distributed::plan_epochs(t.candidate_config(1), start_candidate_plan(t, 1));
  EXPECT_EQ(e1.local_passes, 2);
  EXPECT_NEAR(e1.schedule.eta, 1.5, 1e-11);
  EXPECT_EQ(e1.updates_per_epoch, 10);
  EXPECT_NEAR(e1.sensitivity, 0.3, 1e-12);
}

TEST(KeyedSplitTuner, StronglyConvexCandidatesUseThePerShardBoundOfTheirPart) {
  // lambda = 1, logistic: R = 1/lambda = 1, L = 1 + lambda R = 2,
  // beta = 1 + lambda = 2, gamma = 1; step eta_t = min(1/beta, 1/(gamma t)):
  // 1/2, 1/2, 1/3, 1/4; rho_t = 1 - eta_t gamma: 1/2, 1/2, 2/3, 3/4 (Bolt-on Lemma 8).
  // Part 1 holds n_{s,1} = 4, 2, 0 rows (m_1 = 6; an empty shard), b = 2, so
  // U = max_s ceil(n_{s,1}/b) = 2 and 2L/b = 2.
  // Epoch 0 (t = 1, 2 on shard 1; t = 1 on shard 2), worst position of the row:
  //   shard 1: max(eta_1 rho_2, eta_2) = max(1/4, 1/2) = 1/2, I = 2 * 1/2 = 1, weight 4/6;
  //   shard 2: eta_1 = 1/2, I = 1, weight 2/6;
  //   delta_1 = max(4/6 * 1, 2/6 * 1) = 2/3.
  // One epoch: Delta = 2/3, the sequential Lemma 8 value for m_1 = 6, U = 3:
  //   min(2kL/(b beta), 2L/(gamma b U)) = min(1, 4/6) = 2/3: the noise covers it.
  // Epoch 1 (t = 3, 4 on shard 1; t = 3 on shard 2):
  //   C_1 = rho_3 rho_4 = 1/2, C_2 = rho_3 = 2/3: sum_s (n_s/m) C_s = 4/6 * 1/2 + 2/6 * 2/3 = 5/9;
  //   I_1 = 2 max(eta_3 rho_4, eta_4) = 2 * 1/4 = 1/2 (weighted 1/3), I_2 = 2 eta_3 = 2/3 (weighted 2/9);
  //   delta_2 = 5/9 * 2/3 + 1/3 = 19/27 = 0.7037037 > 2/3 = the sequential bound for k = 2:
  //   refused before the charge (the noise would not cover it).
  TrainingConfig c = base_config(14);
  c.shard_rows = {6, 4, 4};
  c.distribution_column = "id";
  Grid g;
  g.lambdas = {1.0};
  g.epochs = {1};
  g.batch_sizes = {2};
  KeyedSplit k;
  k.rows = {{4, 2, 0}, {2, 2, 4}};
  Tuner t(c, g, k);
  const TrainingConfig& c0 = t.candidate_config(0);
  EXPECT_EQ(c0.rows, 6);
  const TrainingPlan plan = start_candidate_plan(t, 0);
  EXPECT_NEAR(plan.privacy["sensitivity"].get<double>(), 2.0 / 3.0, 1e-12);
  const distributed::EpochPlan e = distributed::plan_epochs(c0, plan);
  EXPECT_EQ(e.updates_per_epoch, 2);
  EXPECT_NEAR(e.sensitivity, 2.0 / 3.0, 1e-12);

  g.epochs = {2};
  try {
    Tuner(c, g, k);
    FAIL() << "accepted a per-shard bound above the noise's";
  } catch (const Error& e2) {
    EXPECT_EQ(e2.kind(), ErrorKind::NotImplemented);
    EXPECT_NE(e2.detail().find("0.7037037037"), std::string::npos) << e2.detail();
    EXPECT_NE(e2.detail().find("tuning candidate lambda = 1, epochs = 2"), std::string::npos) << e2.detail();
  }
}

TEST(KeyedSplitTuner, RefusesPartsTooSmallAndAnEmptyHeldOutPartNamingThem) {
  TrainingConfig c = distributed_config();
  Grid g;
  g.lambdas = {0.0};
  g.epochs = {1};
  g.batch_sizes = {50};
  KeyedSplit k = hand_split();
  k.rows[1] = {10, 15, 10};  // part 2: 35 rows < b = 50
  k.rows[2] = {70, 125, 120};
  g.batch_sizes = {50, 60};
  try {
    Tuner(c, g, k);
    FAIL() << "accepted a part smaller than its candidate's batch";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("batch size 60 is larger than the 35 rows of a tuning part (part 2 of 3)"),
              std::string::npos) << e.what();
    EXPECT_NE(e.detail().find("keyed hash of \"id\""), std::string::npos) << e.detail();
  }
  KeyedSplit empty = hand_split();
  empty.rows[1] = {80, 140, 130};
  empty.rows[2] = {0, 0, 0};
  g.batch_sizes = {50, 60};
  try {
    Tuner(c, g, empty);
    FAIL() << "accepted an empty held-out part";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("held-out part 3 of the tuning split has no rows"), std::string::npos) << e.what();
  }
  // A distributed table needs its keyed split, a prepared table must not get one.
  EXPECT_THROW(Tuner(c, g), Error);
  EXPECT_THROW(Tuner(base_config(550), g, hand_split()), Error);
  // What cannot train shard by shard is refused for every candidate (0A000).
  TrainingConfig scs = distributed_config();
  scs.algorithm = "scs13";
  scs.delta = 1e-6;
  g.batch_sizes = {50};
  try {
    Tuner(scs, g, [] { KeyedSplit s = hand_split(); s.rows.pop_back(); s.rows[1] = {80, 140, 130}; return s; }());
    FAIL() << "accepted scs13 on a distributed table";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotImplemented) << e.what();
  }
}

TEST(KeyedSplitTuner, AsksForNoSplitAndReadsEveryPartWhereTheRowsAre) {
  TrainingConfig c = distributed_config();
  c.learning_rate = 0.5;
  Grid g;
  g.lambdas = {0.0};
  g.epochs = {1, 2};
  const KeyedSplit k = hand_split();
  Tuner t(c, g, k);
  const sgd::EpochShuffleWords w = sgd::epoch_key_to_words(k.key);
  const std::vector<double> kappa(w.begin(), w.end());
  std::vector<std::pair<PassKind, int>> seen;
  while (std::optional<Pass> p = t.next()) {
    ASSERT_NE(p->kind, PassKind::Split);
    seen.emplace_back(p->kind, p->table);
    EXPECT_EQ(p->split_key, kappa);
    EXPECT_EQ(p->parts, 3);
    std::vector<double> r = p->input;
    if (p->kind == PassKind::SgdEpoch) {
      const TrainingConfig& ci = t.candidate_config(p->table - 1);
      EXPECT_EQ(p->shuffle_key.size(), 4u);  // per-shard PSGD over the part
      r[epoch_state::kRows] = static_cast<double>(ci.rows * p->local_passes);
      std::int64_t u = 0;
      std::vector<std::uint64_t> counts;
      for (std::int64_t n_s : ci.shard_rows) {
        u = std::max(u, (n_s * p->local_passes + 49) / 50);
        counts.push_back(static_cast<std::uint64_t>(n_s * p->local_passes));
      }
      // The fingerprint the combine builds from the part's shard states (sgd/shard_counts.h).
      const sgd::CountFingerprint f = sgd::multiset_fingerprint(epoch_state::config_of(r.data()).count_key, counts);
      r[epoch_state::kShardStates] = static_cast<double>(f.states);
      r[epoch_state::kShardSumLow] = static_cast<double>(f.sum & 0xffffffffu);
      r[epoch_state::kShardSumHigh] = static_cast<double>(f.sum >> 32);
      r[epoch_state::kUpdates] += static_cast<double>(u);
    } else {
      EXPECT_EQ(p->table, 3);  // the held-out part
      r = {150, 120, 10};
    }
    t.accept(r.data(), r.size());
  }
  EXPECT_EQ(seen, (std::vector<std::pair<PassKind, int>>{{PassKind::SgdEpoch, 1},
                                                          {PassKind::Evaluate, 3},
                                                          {PassKind::SgdEpoch, 2},
                                                          {PassKind::SgdEpoch, 2},
                                                          {PassKind::Evaluate, 3}}));
  const Model m = t.release(0);
  EXPECT_EQ(m.details["tuning"]["part_rows"], (std::vector<std::int64_t>{200, 200, 150}));
  EXPECT_EQ(m.details["tuning"]["part_shard_rows"], k.rows);
  EXPECT_EQ(m.details["data"]["distribution"]["shard_rows"], c.shard_rows);
  EXPECT_NE(m.details["privacy"]["split"].get<std::string>().find("keyed hash"), std::string::npos);
  EXPECT_NE(m.details["privacy"]["adjacency"].get<std::string>().find("keeping the row's distribution key"),
            std::string::npos);
  // A role without read access sees the number of parts and the smallest (and of shards, the largest).
  Model redacted = m;
  redact_part_rows(redacted);
  distributed::redact_shard_rows(redacted);
  EXPECT_FALSE(redacted.details["tuning"].contains("part_rows"));
  EXPECT_FALSE(redacted.details["tuning"].contains("part_shard_rows"));
  EXPECT_EQ(redacted.details["tuning"]["smallest_part_rows"], 150);
  EXPECT_EQ(redacted.details["tuning"]["parts"], 3);
  EXPECT_EQ(redacted.details["data"]["distribution"]["largest_shard_rows"], 200);
  EXPECT_EQ(redacted.details.dump().find("\"shard_rows\""), std::string::npos);
}

// The counts dp_tune makes in SQL (one statement grouping by shard and
// part), made here independently: row i (its key) on shard i mod S.
KeyedSplit count_parts(const InMemoryData& table, const sgd::SplitKey& key, int parts, int shards) {
  KeyedSplit k;
  k.key = key;
  k.rows.assign(static_cast<std::size_t>(parts), std::vector<std::int64_t>(static_cast<std::size_t>(shards), 0));
  for (std::int64_t i = 0; i < table.rows(); ++i)
    ++k.rows[static_cast<std::size_t>(sgd::tuning_part(i, key, parts) - 1)][static_cast<std::size_t>(table.shard[i])];
  return k;
}

// Algorithm 3 on shards in memory, driven as dp_tune drives it: the split's
// key from the seed, the parts read where the rows are.
Model tune_on_shards(const InMemoryData& table, TrainingConfig c, const Grid& g, int shards) {
  c.rows = table.rows();
  c.dim = table.dim();
  c.shard_rows.assign(static_cast<std::size_t>(shards), 0);
  for (int s : table.shard) ++c.shard_rows[static_cast<std::size_t>(s)];
  c.distribution_column = "id";
  Tuner t(c, g, count_parts(table, draw_split_key(c), static_cast<int>(expand(g).size()) + 1, shards));
  return drive_in_memory(t, table);
}

TEST(KeyedSplitTuner, EndToEndOnShardsInMemoryIsReproducibleAndAccurate) {
  InMemoryData table = separable(3000, 3);
  for (std::int64_t i = 0; i < table.rows(); ++i) table.shard.push_back(static_cast<int>(i % 4));
  TrainingConfig c = base_config(0);
  c.epsilon = 1.0;
  c.seed = 11;
  c.learning_rate = 0.5;
  Grid g;
  g.lambdas = {0.0, 1e-3};
  g.epochs = {1, 3};
  const Model m = tune_on_shards(table, c, g, 4);
  const KeyedSplit k = count_parts(table, sgd::tuning_split_key(11), 5, 4);
  std::vector<std::int64_t> sizes;
  for (const auto& r : k.rows) sizes.push_back(std::accumulate(r.begin(), r.end(), std::int64_t{0}));
  EXPECT_EQ(m.details["tuning"]["part_rows"], sizes);
  EXPECT_EQ(m.details["data"]["rows"], 3000);
  EXPECT_EQ(*m.epsilon, 1.0);
  EXPECT_TRUE(m.details["privacy"]["candidate"].contains("distributed"));
  EXPECT_EQ(m.details.dump().find("errors\":"), std::string::npos);
  // The same seed: the same kappa, parts, shard orders, noise and choice.
  const Model again = tune_on_shards(table, c, g, 4);
  EXPECT_EQ(again.weights, m.weights);
  EXPECT_EQ(again.details["tuning"]["chosen"], m.details["tuning"]["chosen"]);
  // Another seed: another kappa, hence other parts.
  c.seed = 12;
  const Model other = tune_on_shards(table, c, g, 4);
  EXPECT_NE(other.details["tuning"]["part_rows"], m.details["tuning"]["part_rows"]);
  // The tuned model classifies the (nearly separable) table well.
  const std::vector<double> packed = packed_model::pack(m);
  std::vector<double> totals(evaluation::totals_size(2), 0.0);
  for (std::int64_t r = 0; r < table.rows(); ++r)
    packed_model::accumulate(packed.data(), table.x[r].data(), table.dim(), static_cast<int>(table.y[r]), totals.data());
  EXPECT_GT(totals[1] / table.rows(), 0.8);
}

TEST(KeyedSplitTuner, ACandidateWhosePartChangedShardCountsWithTheSameTotalsIsRefused) {
  // dp_tune in place with the table rewritten between the counts and the
  // passes (docs/tuning.md section 5): a row of candidate 1's part moves from
  // shard a to shard b. Its part keeps its total and its largest shard, so
  // the totals checks pass; the multiset of per-shard counts does not
  // (docs/distributed.md section 9.2, "every shard's count, every pass").
  InMemoryData table = separable(3000, 3);
  for (std::int64_t i = 0; i < table.rows(); ++i) table.shard.push_back(static_cast<int>(i % 4));
  TrainingConfig c = base_config(table.rows());
  c.seed = 11;
  c.learning_rate = 0.5;
  c.shard_rows = {750, 750, 750, 750};
  c.distribution_column = "id";
  Grid g;
  g.lambdas = {0.0};
  g.epochs = {1, 2};  // two candidates: parts 1 and 2, part 3 held out
  const KeyedSplit k = count_parts(table, draw_split_key(c), 3, 4);
  const std::vector<std::int64_t>& p1 = k.rows[0];
  const std::int64_t largest = *std::max_element(p1.begin(), p1.end());
  const auto b = static_cast<std::size_t>(std::min_element(p1.begin(), p1.end()) - p1.begin());
  std::size_t a = 0;
  while (a < 4 && (a == b || p1[a] == p1[b] + 1 ||
                   (p1[a] == largest && std::count(p1.begin(), p1.end(), largest) < 2)))
    ++a;
  ASSERT_LT(a, 4u);
  ASSERT_LT(p1[b] + 1, largest + 1);
  InMemoryData rewritten = table;
  std::int64_t moved = 0;
  while (sgd::tuning_part(moved, k.key, 3) != 1 || table.shard[moved] != static_cast<int>(a)) ++moved;
  rewritten.shard[moved] = static_cast<int>(b);

  Tuner unchanged(c, g, k);
  EXPECT_NO_THROW(drive_in_memory(unchanged, table));
  Tuner t(c, g, k);
  try {
    drive_in_memory(t, rewritten);
    ADD_FAILURE() << "the rewritten part was not refused";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the shards of the table changed during training");
    EXPECT_EQ(e.sqlstate(), "DP003");
  }
}

}  // namespace
}  // namespace dptrain::tuning
