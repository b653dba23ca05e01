// The empirical privacy audit of bolt-on on a distributed table
// (docs/distributed.md sections 2 and 9): the run object's per-shard PSGD
// epochs (sequential-equivalent step, P local passes, keyed shuffle per
// shard, n_s/n averaging), executed in memory exactly as Citus runs them
// (engine/in_memory.h, sgd/sharded_epoch.h), then the noise of the plan.
//
// Tables: the standard audit neighbours (test/privacy/audit/scenarios.h: 99
// rows of dimension 1 with random labels, the canary x* = 1 last, positive
// in D and negative in D'), dealt into 4 shards by row key mod 4 (25 rows
// each; the canary, key 99, in shard 3). In Huber's linear region the
// canary moves its shard's model by P * 2 eta' / b per epoch and the
// average by a quarter of that, i.e. exactly the per-shard PSGD bound k P
// (2 L eta' / b) max_s n_s/n, which equals the sequential 2 k L eta / b the
// noise is calibrated to: the audit has its full power. The strongly convex
// schedule's per-shard bound is smaller than the sequential one, and the
// run calibrates the noise to it (docs/distributed.md section 9.2): audited
// below with that smaller noise.
//
// Soundness of the thresholds as in privacy_audit_test.cpp (alpha = 0.01,
// fixed seeds).
#include <gtest/gtest.h>

#include <utility>

#include "audit/report.h"
#include "audit/scenarios.h"
#include "core/error.h"

namespace dptrain::test::audit {
namespace {

Neighbours sharded_neighbours() {
  Neighbours n = standard_neighbours();
  for (InMemoryData* t : {&n.d, &n.d_prime})
    for (std::int64_t i = 0; i < t->rows(); ++i) t->shard.push_back(static_cast<int>(i % 4));
  return n;
}

TrainingConfig sharded(TrainingConfig c) {
  c.shard_rows = {25, 25, 25, 25};
  c.distribution_column = "id";
  return c;
}

TEST(DistributedPrivacyAudit, BoltonOnShardsStaysWithinItsClaim) {
  const Neighbours n = sharded_neighbours();
  for (double delta : {0.0, 1e-5}) {
    const Scenario s = bolton_scenario(delta > 0 ? "distributed bolton convex (eps,delta)-DP"
                                                 : "distributed bolton convex eps-DP",
                                       sharded(bolton_config(1.0, delta, 0)));
    const Result r = run_audit(s, n, ci_options(1500, 400, 11));
    print_result(r);
    EXPECT_LE(r.bound.epsilon, r.claimed_epsilon) << s.name;
    if (delta == 0) {
      EXPECT_GT(r.bound.epsilon, 0.5 * r.claimed_epsilon) << s.name << ": the audit has no power";
    }
    // The canary moves the averaged model by the per-shard bound, which is
    // the sequential sensitivity the noise is calibrated to.
    EXPECT_GT(r.noiseless_gap / r.sensitivity, 0.99) << s.name;
    EXPECT_LE(r.noiseless_gap / r.sensitivity, 1.0 + 1e-9) << s.name;
  }
}

TEST(DistributedPrivacyAudit, CatchesBoltonOnShardsWithTheNoiseDividedByTen) {
  const Neighbours n = sharded_neighbours();
  const Scenario s = bolton_scenario("BROKEN distributed bolton/10 convex eps-DP", sharded(bolton_config(0.25, 0, 0)),
                                     under_noised_bolton(10));
  const Result r = run_audit(s, n, ci_options(800, 200, 11));
  print_result(r);
  EXPECT_GT(r.bound.epsilon, r.claimed_epsilon) << "the broken variant was not caught";
}

// The strongly convex schedule (lambda = 0.01, R = 1, step min(1/beta,
// 1/(gamma t))): the per-shard bound is about a quarter of the sequential
// Lemma 8 bound on these tables (U = 3 updates per shard and epoch instead
// of 10, weight 1/4), and the run calibrates the noise to it
// (docs/distributed.md section 9.2). The canary, in Huber's linear region,
// moves the averaged model by close to that bound, so the audit tests the
// smaller noise at nearly full power.
TrainingConfig strongly_convex(double epsilon, double delta) {
  return detail::with_facts(sharded(bolton_config(epsilon, delta, 0.01)), sharded_neighbours());
}

// The per-shard bound the run's noise is calibrated to, and the sequential one.
std::pair<double, double> shard_and_sequential(const TrainingConfig& c) {
  const EpochRun run(c);
  return {run.plan().privacy.at("sensitivity").get<double>(),
          make_algorithm("bolton")->plan(c).privacy.at("sensitivity").get<double>()};
}

TEST(DistributedPrivacyAudit, StronglyConvexBoltonOnShardsWithThePerShardNoiseStaysWithinItsClaim) {
  const Neighbours n = sharded_neighbours();
  for (double delta : {0.0, 1e-5}) {
    const auto [shard, sequential] = shard_and_sequential(strongly_convex(1.0, delta));
    ASSERT_LT(shard, 0.5 * sequential);  // the noise really is the smaller one
    const Scenario s = bolton_scenario(delta > 0 ? "distributed bolton strongly convex (eps,delta)-DP"
                                                 : "distributed bolton strongly convex eps-DP",
                                       sharded(bolton_config(1.0, delta, 0.01)));
    const Result r = run_audit(s, n, ci_options(1500, 400, 12));
    print_result(r);
    EXPECT_LE(r.bound.epsilon, r.claimed_epsilon) << s.name;
    if (delta == 0) {
      EXPECT_GT(r.bound.epsilon, 0.5 * r.claimed_epsilon) << s.name << ": the audit has no power";
    }
    // The canary never moves the model by more than the per-shard bound
    // (soundness of the bound on these tables), and by most of it (power).
    EXPECT_LE(r.noiseless_gap, shard * (1 + 1e-9)) << s.name;
    EXPECT_GT(r.noiseless_gap, 0.8 * shard) << s.name;
  }
}

TEST(DistributedPrivacyAudit, CatchesStronglyConvexBoltonOnShardsWithThePerShardNoiseDividedByTen) {
  const Neighbours n = sharded_neighbours();
  const Scenario s = bolton_scenario("BROKEN distributed bolton/10 strongly convex eps-DP",
                                     sharded(bolton_config(0.25, 0, 0.01)), under_noised_bolton(10));
  const Result r = run_audit(s, n, ci_options(800, 200, 12));
  print_result(r);
  EXPECT_GT(r.bound.epsilon, r.claimed_epsilon) << "the broken variant was not caught";
}

// A plan that claims a smaller sensitivity than the per-shard bound (here
// the sequential one divided by the number of shards, the mistake of
// believing that averaging S models divides the sensitivity by S while the
// shards take the sequential-equivalent step) is refused before any data is
// read.
class AveragingDividesBolton : public Bolton {
 public:
  TrainingPlan plan(const TrainingConfig& config) const override {
    TrainingPlan p = Bolton::plan(config);
    p.privacy["sensitivity"] = p.privacy["sensitivity"].get<double>() / 4;
    return p;
  }
};

TEST(DistributedPrivacyAudit, RefusesAPlanWhoseNoiseDoesNotCoverThePerShardBound) {
  TrainingConfig c = detail::with_facts(sharded(bolton_config(1.0, 0, 0)), sharded_neighbours());
  try {
    EpochRun run(c, std::make_shared<AveragingDividesBolton>());
    ADD_FAILURE() << "the run was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotImplemented) << e.what();
    EXPECT_NE(e.detail().find("exceeds the sequential one"), std::string::npos) << e.detail();
  }
}

}  // namespace
}  // namespace dptrain::test::audit
