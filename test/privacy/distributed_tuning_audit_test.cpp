// The empirical privacy audit of private tuning (Bolt-on Algorithm 3) on a
// distributed table (docs/tuning.md section 5): the Tuner with a keyed split,
// every candidate's per-shard PSGD epochs on its part read where the rows
// are, the held-out evaluation and the selection, executed in memory exactly
// as dp_tune drives them on Citus (engine/in_memory.h).
//
// Tables: the standard audit neighbours (test/privacy/audit/scenarios.h: 99
// rows of dimension 1 with random labels, the canary x* = 1 last, key 99,
// positive in D and negative in D'), dealt into 4 shards by key mod 4.
// One candidate (bolt-on convex, Huber SVM, 5 epochs, b = 10), so l + 1 = 2
// parts. Section 5's argument holds for every fixed kappa; the audit fixes one
// under which the canary is in the training part 1 and on a shard holding
// the most rows of that part: in Huber's linear region the canary then moves
// the averaged model by exactly the candidate's per-shard bound (for m_1
// and n_{s,1}), which equals the sequential bound for m_1 its noise is
// calibrated to, so the audit has its full power. (The selection among one
// candidate is trivial; the exponential mechanism is audited on its own:
// test/privacy/exponential_mechanism_test.cpp.)
//
// Soundness of the thresholds as in privacy_audit_test.cpp (alpha = 0.01,
// fixed seeds).
#include <gtest/gtest.h>

#include <algorithm>

#include "audit/report.h"
#include "audit/scenarios.h"
#include "core/engine/in_memory.h"
#include "core/sgd/shuffle_key.h"
#include "core/tuning/private_tuning.h"

namespace dptrain::test::audit {
namespace {

constexpr int kShards = 4;
constexpr std::int64_t kCanaryKey = 99;

Neighbours sharded_neighbours() {
  Neighbours n = standard_neighbours();
  for (InMemoryData* t : {&n.d, &n.d_prime})
    for (std::int64_t i = 0; i < t->rows(); ++i) t->shard.push_back(static_cast<int>(i % kShards));
  return n;
}

// The rows of every (part, shard) under `key` (the counts dp_tune makes in SQL).
tuning::KeyedSplit count_split(const InMemoryData& t, const sgd::SplitKey& key, int parts) {
  tuning::KeyedSplit k;
  k.key = key;
  k.rows.assign(static_cast<std::size_t>(parts), std::vector<std::int64_t>(kShards, 0));
  for (std::int64_t i = 0; i < t.rows(); ++i)
    ++k.rows[static_cast<std::size_t>(sgd::tuning_part(i, key, parts) - 1)][static_cast<std::size_t>(t.shard[i])];
  return k;
}

// The first seed's kappa putting the canary in part 1 on a largest shard of that part.
tuning::KeyedSplit canary_split(const InMemoryData& t) {
  for (std::uint64_t seed = 1;; ++seed) {
    const sgd::SplitKey key = sgd::tuning_split_key(seed);
    if (sgd::tuning_part(kCanaryKey, key, 2) != 1) continue;
    tuning::KeyedSplit k = count_split(t, key, 2);
    const std::vector<std::int64_t>& part1 = k.rows[0];
    if (part1[kCanaryKey % kShards] == *std::max_element(part1.begin(), part1.end())) return k;
  }
}

TrainingConfig tuning_config(const Neighbours& n, double epsilon) {
  TrainingConfig c = bolton_config(epsilon, 0, 0);
  c.rows = n.d.rows();
  c.dim = n.d.dim();
  c.classes = n.classes;
  c.shard_rows.assign(kShards, n.d.rows() / kShards);
  c.distribution_column = "id";
  return c;
}

tuning::Grid one_candidate() {
  tuning::Grid g;
  g.lambdas = {0.0};
  g.epochs = {5};
  g.batch_sizes = {10};
  return g;
}

// dp_tune on shards in memory: the released weights of one tuning run with
// noise seed `seed` (the candidate's noise is candidate_seed(seed, 0), the selection's the
// seed's stream 1).
Release tuned(TrainingConfig config, tuning::KeyedSplit split) {
  return [config, split](const InMemoryData& table, std::int64_t seed) {
    TrainingConfig c = config;
    c.seed = seed;
    tuning::Tuner t(c, one_candidate(), split);
    const Model m = drive_in_memory(t, table);
    return std::vector<double>(m.weights.data(), m.weights.data() + m.weights.size());
  };
}

Result audit(const std::string& name, const TrainingConfig& config, double claimed, const Neighbours& n,
             const tuning::KeyedSplit& split, const Options& o) {
  Result r;
  r.name = name;
  r.claimed_epsilon = claimed;
  r.claimed_delta = 0;
  distinguish(tuned(config, split), n, o, r);
  return r;
}

TEST(DistributedTuningAudit, TheTunedRunOnShardsStaysWithinItsClaim) {
  const Neighbours n = sharded_neighbours();
  const tuning::KeyedSplit split = canary_split(n.d);
  // The canary's part and shard are the same on both tables (its key is kept).
  EXPECT_EQ(split.rows, count_split(n.d_prime, split.key, 2).rows);
  const Result r = audit("dp_tune on shards, bolton convex eps-DP", tuning_config(n, 1.0), 1.0, n, split,
                         ci_options(1500, 400, 11));
  print_result(r);
  EXPECT_LE(r.bound.epsilon, r.claimed_epsilon);
  EXPECT_GT(r.bound.epsilon, 0.5 * r.claimed_epsilon) << "the audit has no power";
}

// The candidates' noise ten times too small: trained for epsilon 2.5 while
// the run claims 0.25 (what planning from n rows instead of m_i, or a per-shard
// bound the noise does not cover, would amount to).
TEST(DistributedTuningAudit, CatchesCandidatesWithTheNoiseDividedByTen) {
  const Neighbours n = sharded_neighbours();
  const Result r = audit("BROKEN dp_tune on shards, noise/10", tuning_config(n, 2.5), 0.25, n, canary_split(n.d),
                         ci_options(800, 200, 11));
  print_result(r);
  EXPECT_GT(r.bound.epsilon, r.claimed_epsilon) << "the broken variant was not caught";
}

}  // namespace
}  // namespace dptrain::test::audit
