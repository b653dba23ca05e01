// dp_tune(method => 'liu_talwar') on a Citus hash-distributed table
// (docs/tuning.md section 4, "On a distributed table"): every candidate is
// dp_train in place on the whole table (per-shard PSGD, the same refusals,
// before the charge), scored by an exact sum over the shards, and the
// released model records the distribution and the adjacency it rests on.
// The shards are the in-memory driver's (engine/in_memory.h), run as Citus
// runs them.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

#include "core/engine/in_memory.h"
#include "core/error.h"
#include "core/tuning/candidate_seed.h"
#include "core/tuning/liu_talwar_tuner.h"

namespace dptrain::tuning {
namespace {

// 2000 nearly separable rows of norm 1, row i (its key) on shard i mod 4.
InMemoryData sharded_table() {
  std::mt19937_64 gen(3);
  std::normal_distribution<double> g;
  InMemoryData t;
  for (int i = 0; i < 2000; ++i) {
    std::vector<double> x = {g(gen), g(gen), 0.3};
    const double norm = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (double& v : x) v /= norm;
    t.y.push_back(x[0] - 0.5 * x[1] > 0 ? 1.0 : 0.0);
    t.x.push_back(x);
    t.shard.push_back(i % 4);
  }
  return t;
}

// The public facts dp_tune's begin_run fills in for that table.
TrainingConfig sharded_config(const char* algorithm) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.epsilon = 3.0;
  c.delta = 1e-5;
  c.rows = 2000;
  c.dim = 3;
  c.classes = {"neg", "pos"};
  c.batch_size = 20;
  c.epochs = 2;
  c.shard_rows = {500, 500, 500, 500};
  c.distribution_column = "id";
  return c;
}

ParameterGrid learning_rates() {
  return ParameterGrid::parse(nlohmann::json::parse(R"({"learning_rate": [0.1, 1.0]})"));
}

TEST(LiuTalwarOnShards, CandidatesThatCannotTrainShardByShardAreRefusedNamingThePoint) {
  // As dp_train in place (engine/distributed.h check): noise per batch, and
  // averaged iterates, refused with 0A000 when the tuner is made (dp_tune's
  // hook before the charge), the grid point in the detail.
  for (const char* algorithm : {"dpsgd", "scs13"}) {
    try {
      LiuTalwarTuner t(sharded_config(algorithm), learning_rates(), std::nullopt);
      ADD_FAILURE() << algorithm << " was not refused on shards";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::NotImplemented) << algorithm << ": " << e.what();  // 0A000
      EXPECT_NE(std::string(e.what()).find("cannot train on a distributed table"), std::string::npos) << e.what();
      EXPECT_NE(e.detail().find("In the tuning grid point learning_rate = 0.1"), std::string::npos) << e.detail();
    }
  }
  TrainingConfig c = sharded_config("bolton");
  c.averaging = true;
  EXPECT_THROW(LiuTalwarTuner(c, learning_rates(), std::nullopt), Error);
  // The same candidates on a plain table are fine (the copy path).
  TrainingConfig plain = sharded_config("dpsgd");
  plain.shard_rows.clear();
  EXPECT_NO_THROW(LiuTalwarTuner(plain, learning_rates(), std::nullopt));
}

TEST(LiuTalwarOnShards, TheReleasedModelIsItsCandidatesDpTrainInPlaceAndRecordsTheDistribution) {
  const InMemoryData data = sharded_table();
  TrainingConfig c = sharded_config("bolton");
  c.seed = 17;
  // gamma = 1/20: several candidates run with this seed (checked), so both points are tried.
  LiuTalwarTuner t(c, learning_rates(), 0.05);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(t.candidate_config(i).shard_rows, c.shard_rows);
  const Model m = drive_in_memory(t, data);
  ASSERT_GE(t.candidates_run(), 2);
  std::size_t best = 0;  // the best-scored run (ties: the earliest)
  for (std::size_t r = 1; r < t.trace().size(); ++r)
    if (t.trace()[r].second > t.trace()[best].second) best = r;
  ASSERT_EQ(t.chosen_point(), t.trace()[best].first);

  // The chosen candidate is exactly dp_train in place with its grid point,
  // its share of the budget and its seed (run `best`): the same per-shard
  // PSGD on the same shards, the same noise.
  TrainingConfig k = t.candidate_config(t.chosen_point());
  k.seed = candidate_seed(17, static_cast<std::uint64_t>(best));
  const std::unique_ptr<dptrain::Run> train = start_run(k);
  const Model alone = drive_in_memory(*train, data);
  EXPECT_EQ(m.weights, alone.weights);
  EXPECT_EQ(*alone.epsilon, t.split().training_epsilon);
  ASSERT_TRUE(alone.details["privacy"].contains("distributed"));
  EXPECT_EQ(m.details["privacy"]["candidate"], alone.details["privacy"]);

  // The distribution and the adjacency it rests on, as dp_train in place records them.
  const nlohmann::json& d = m.details.at("data").at("distribution");
  EXPECT_EQ(d.at("distribution_column"), "id");
  EXPECT_EQ(d.at("shard_rows"), c.shard_rows);
  EXPECT_NE(d.at("kind").get<std::string>().find("trained in place"), std::string::npos);
  EXPECT_EQ(m.details["privacy"]["adjacency"], d.at("adjacency"));
  EXPECT_NE(m.details["privacy"]["adjacency"].get<std::string>().find("keeping the row's distribution key"),
            std::string::npos);
  EXPECT_EQ(*m.epsilon, 3.0);  // the accounting is unchanged: the requested total
  EXPECT_EQ(m.details["tuning"]["method"], "liu_talwar");

  // The same seed: the same candidates, coins, shard orders, noise and choice.
  LiuTalwarTuner again(c, learning_rates(), 0.05);
  const Model m2 = drive_in_memory(again, data);
  EXPECT_EQ(again.trace(), t.trace());
  EXPECT_EQ(m2.weights, m.weights);
}

TEST(LiuTalwarOnShards, ExactSumCandidatesKeepTheirOwnAdjacency) {
  // DP-AGD's passes are exact gradient sums: on shards it computes what it
  // computes on one node, DP under add/remove-one, which a replacement
  // keeping the key is not (it is two steps of it). The search's total is
  // stated under the candidates' own relation, not the per-shard one.
  const InMemoryData data = sharded_table();
  TrainingConfig c = sharded_config("dpagd");
  c.seed = 5;
  LiuTalwarTuner t(c, ParameterGrid::parse(nlohmann::json::parse(R"({"lambda": [0.001, 0.01]})")), 0.5);
  const Model m = drive_in_memory(t, data);
  EXPECT_EQ(m.details["privacy"]["candidate"]["adjacency"], "add-remove");
  EXPECT_EQ(m.details["privacy"]["adjacency"], "add-remove");
  EXPECT_FALSE(m.details["privacy"]["candidate"].contains("distributed"));
  EXPECT_EQ(m.details["data"]["distribution"]["shard_rows"], c.shard_rows);  // what dp_train records
}

}  // namespace
}  // namespace dptrain::tuning
