// Sensitivity of per-shard permutation SGD + averaging with weights n_s/n
// (src/core/privacy/distributed_sensitivity.h): small cases computed by hand
// for every schedule, the reduction to the sequential Bolt-on bounds with one
// shard, and a brute-force evaluation of the growth recursion over every
// position of the differing row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/error.h"
#include "core/privacy/distributed_sensitivity.h"

namespace dptrain::privacy::distributed {
namespace {

ShardedShape shape(std::vector<std::int64_t> rows, std::int64_t b, int k, int passes = 1) {
  ShardedShape s;
  s.shard_rows = std::move(rows);
  s.batch_size = b;
  s.epochs = k;
  s.local_passes = passes;
  return s;
}

StepSchedule constant(double eta) {
  StepSchedule s;
  s.kind = ScheduleKind::Constant;
  s.eta = eta;
  return s;
}

StepSchedule decreasing(ScheduleKind kind, double beta, double offset) {
  StepSchedule s;
  s.kind = kind;
  s.beta = beta;
  s.offset = offset;
  return s;
}

StepSchedule strongly_convex(double beta, double gamma) {
  StepSchedule s;
  s.kind = ScheduleKind::StronglyConvex;
  s.beta = beta;
  s.gamma = gamma;
  return s;
}

LossConstants constants(double L, double beta, double gamma) { return {L, beta, gamma}; }

TEST(DistributedShape, CountsUpdatesAndWeights) {
  const ShardedShape s = shape({6, 3, 0, 1}, 2, 1, 3);
  EXPECT_EQ(s.rows(), 10);
  EXPECT_EQ(s.shard_updates(0), 9);  // ceil(3 * 6 / 2)
  EXPECT_EQ(s.shard_updates(1), 5);  // ceil(3 * 3 / 2): batches straddle the passes
  EXPECT_EQ(s.shard_updates(2), 0);
  EXPECT_EQ(s.shard_updates(3), 2);  // ceil(3 * 1 / 2)
  EXPECT_EQ(s.updates_per_epoch(), 9);
  EXPECT_DOUBLE_EQ(s.weight(0), 0.6);
  EXPECT_DOUBLE_EQ(s.weight(2), 0.0);
}

// --- by hand ----------------------------------------------------------------

TEST(DistributedSensitivity, ConvexConstantByHand) {
  // Shards 6, 3, 1 (n = 10), b = 2, k = 3, L = beta = 1, eta = 0.5:
  // k P (2 L eta / b) max_s n_s/n = 3 * 1 * (2 * 0.5 / 2) * 0.6 = 0.9.
  const ShardedShape s = shape({6, 3, 1}, 2, 3);
  EXPECT_NEAR(convex_constant_step(1.0, 1.0, 0.5, s), 0.9, 1e-15);
  EXPECT_NEAR(sensitivity(constant(0.5), constants(1, 1, 0), s).sensitivity, 0.9, 1e-15);
  // Two local passes: the row is used twice per epoch, 1.8.
  EXPECT_NEAR(sensitivity(constant(0.5), constants(1, 1, 0), shape({6, 3, 1}, 2, 3, 2)).sensitivity, 1.8, 1e-15);
  // The sequential bound would be 2 k L eta / b = 1.5: averaging shrinks
  // the differing shard's contribution to its weight 0.6.
}

TEST(DistributedSensitivity, SequentialEquivalentStepAndPasses) {
  // Shards 6, 3, 1: c = n / max_s n_s = 10/6.
  const ShardedShape s = shape({6, 3, 1}, 2, 3);
  // eta = 0.5, beta = 1: c eta = 5/6 <= 2/beta = 2, so one pass at 5/6; then
  // k (2 L eta' / b) (6/10) = 3 * (5/6) * 0.6 = 1.5 = 2 k L eta / b, the sequential bound.
  SequentialEquivalent m = sequential_equivalent(0.5, 1.0, s);
  EXPECT_EQ(m.local_passes, 1);
  EXPECT_NEAR(m.eta, 5.0 / 6.0, 1e-15);
  EXPECT_NEAR(convex_constant_step(1.0, 1.0, m.eta, s), 1.5, 1e-14);
  // eta = 1.5: c eta = 2.5 > 2, so P = ceil(2.5 / 2) = 2 passes of 1.25;
  // 3 * 2 * (2 * 1.25 / 2) * 0.6 = 4.5 = 2 * 3 * 1.5 / 2.
  ShardedShape two = s;
  m = sequential_equivalent(1.5, 1.0, s);
  EXPECT_EQ(m.local_passes, 2);
  EXPECT_NEAR(m.eta, 1.25, 1e-15);
  two.local_passes = 2;
  EXPECT_NEAR(sensitivity(constant(m.eta), constants(1, 1, 0), two).sensitivity, 4.5, 1e-14);
  // 32 equal shards, eta = 1, beta = 1 (logistic): 32 / 2 = 16 passes of step 2.
  m = sequential_equivalent(1.0, 1.0, shape(std::vector<std::int64_t>(32, 100), 50, 1));
  EXPECT_EQ(m.local_passes, 16);
  EXPECT_NEAR(m.eta, 2.0, 1e-15);
  EXPECT_THROW(sequential_equivalent(2.5, 1.0, s), Error);  // eta > 2/beta
}

TEST(DistributedSensitivity, ConvexDecreasingByHand) {
  // Shards 4, 2 (n = 6), b = 2, k = 2, beta = 1, offset 1: eta_t = 2/(t + 1);
  // U_s = 2, 1, so U = 2 and epoch 1 starts at t = 3.
  // Epoch 0: both shards start at update 1 (eta_1 = 1): injection
  //   max(4/6, 2/6) * (2/2) * 1 = 2/3.
  // Epoch 1: update 3 (eta_3 = 1/2): max(4/6, 2/6) * 1 * 1/2 = 1/3.  Delta = 1.
  const ShardedShape s = shape({4, 2}, 2, 2);
  EXPECT_NEAR(sensitivity(decreasing(ScheduleKind::Decreasing, 1.0, 1.0), constants(1, 1, 0), s).sensitivity, 1.0,
              1e-15);
  // Sequential (one shard of 6, U = 3): eta_1 + eta_4 = 1 + 2/5 = 1.4.
  EXPECT_NEAR(sensitivity(decreasing(ScheduleKind::Decreasing, 1.0, 1.0), constants(1, 1, 0), shape({6}, 2, 2))
                  .sensitivity,
              1.4, 1e-15);
}

TEST(DistributedSensitivity, ConvexSqrtByHand) {
  // Same shards, beta = 2, offset 1: eta_t = 1/(sqrt t + 1).
  // Epoch 0: (2/3) * (2/2) * eta_1 = (2/3)(1/2) = 1/3.
  // Epoch 1: (2/3) * eta_3 = (2/3)/(sqrt 3 + 1) = (sqrt 3 - 1)/3.
  // Delta = sqrt(3)/3 = 0.5773502692.
  const ShardedShape s = shape({4, 2}, 2, 2);
  EXPECT_NEAR(sensitivity(decreasing(ScheduleKind::Sqrt, 2.0, 1.0), constants(1, 2, 0), s).sensitivity,
              std::sqrt(3.0) / 3.0, 1e-15);
}

TEST(DistributedSensitivity, StronglyConvexConstantByHand) {
  // Shards 3, 1 (n = 4), b = 1, k = 2, L = beta = 1, gamma = 0.5, eta = 1:
  // rho = 1 - eta gamma = 0.5, U_s = 3, 1.
  // Per epoch: contraction 0.75 * rho^3 + 0.25 * rho = 0.09375 + 0.125 = 0.21875;
  // injection: the row at the shard's last update, max(0.75, 0.25) * 2 = 1.5.
  // delta_1 = 1.5; delta_2 = 0.21875 * 1.5 + 1.5 = 1.828125.
  const ShardedShape s = shape({3, 1}, 1, 2);
  EXPECT_NEAR(sensitivity(constant(1.0), constants(1, 1, 0.5), s).sensitivity, 1.828125, 1e-15);
  EXPECT_TRUE(sensitivity(constant(1.0), constants(1, 1, 0.5), s).strongly_convex);
}

TEST(DistributedSensitivity, StronglyConvexDecreasingByHand) {
  // Shards 2, 2, b = 1, k = 2, L = 1, beta = 2, gamma = 1: t0 = 2, eta_1 = 1/2,
  // eta_t = 1/t after; rho_1 = 1/2, rho_t = 1 - 1/t.
  // Epoch 0 (updates 1-2): contraction rho_1 rho_2 = 1/4; worst position:
  //   tau = 1: eta_1 rho_2 = 1/4, tau = 2: eta_2 = 1/2 -> 1/2; injection
  //   (1/2) * 2 * 1/2 = 1/2.  delta_1 = 1/2.
  // Epoch 1 (updates 3-4): contraction (3-1)/4 = 1/2; worst eta_3 rho_4 =
  //   (1/3)(3/4) = 1/4 = 1/(gamma * 4); injection (1/2) * 2 * 1/4 = 1/4.
  //   delta_2 = (1/2)(1/2) + 1/4 = 1/2 = 2L/(gamma n), Lemma 8's value.
  const ShardedShape s = shape({2, 2}, 1, 2);
  EXPECT_NEAR(sensitivity(strongly_convex(2, 1), constants(1, 2, 1), s).sensitivity, 0.5, 1e-15);
}

TEST(DistributedSensitivity, LocalPassesWithBatchesStraddlingPasses) {
  // One shard of 3 rows, b = 2, P = 2: the stream of 6 rows has batches
  // {0,1} {2,3} {4,5}; pass 0 (rows 0-2) touches updates 1-2, pass 1 (rows
  // 3-5) updates 2-3. Decreasing, beta = 1, offset 0: eta_t = 2/t, the worst
  // positions are the first update of each pass: (2/2)(eta_1 + eta_2) = 3.
  const ShardedShape s = shape({3}, 2, 1, 2);
  EXPECT_NEAR(sensitivity(decreasing(ScheduleKind::Decreasing, 1.0, 0.0), constants(1, 1, 0), s).sensitivity, 3.0,
              1e-15);
}

// --- one shard = the sequential Bolt-on bounds --------------------------------

TEST(DistributedSensitivity, OneShardIsTheSequentialBound) {
  std::mt19937_64 gen(17);
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, 500)(gen);
    const std::int64_t b = std::uniform_int_distribution<std::int64_t>(1, 60)(gen);
    const int k = std::uniform_int_distribution<int>(1, 12)(gen);
    const ShardedShape d = shape({m}, b, k);
    bolton::RunShape seq;
    seq.rows = m;
    seq.batch_size = b;
    seq.epochs = k;
    const double beta = 1.0 + trial % 3, offset = std::sqrt(static_cast<double>(m));
    const LossConstants convex = constants(1, beta, 0);
    for (const StepSchedule& s : {constant(1.0 / beta), decreasing(ScheduleKind::Decreasing, beta, offset),
                                  decreasing(ScheduleKind::Sqrt, beta, offset)}) {
      const double a = sensitivity(s, convex, d).sensitivity, e = bolton::sensitivity(s, convex, seq).sensitivity;
      EXPECT_NEAR(a, e, 1e-12 * e) << schedule_name(s.kind) << " m=" << m << " b=" << b << " k=" << k;
    }
    const double lambda = std::pow(10.0, -std::uniform_real_distribution<double>(0.5, 3.0)(gen));
    const LossConstants sc = constants(1 + 1, beta + lambda, lambda);
    const double lemma7 = bolton::sensitivity(constant(0.5 / (beta + lambda)), sc, seq).sensitivity;
    EXPECT_NEAR(sensitivity(constant(0.5 / (beta + lambda)), sc, d).sensitivity, lemma7, 1e-12 * lemma7);
    // Lemma 8 in the engine's form k (2L/b) eta_T is reached once every
    // epoch is past t0 = ceil(beta/gamma); before, the recursion is smaller.
    const StepSchedule s8 = strongly_convex(beta + lambda, lambda);
    const double lemma8 = bolton::sensitivity(s8, sc, seq).sensitivity;
    const double ours = sensitivity(s8, sc, d).sensitivity;
    EXPECT_LE(ours, lemma8 * (1 + 1e-12));
    if (static_cast<double>(d.updates_per_epoch()) >= std::ceil((beta + lambda) / lambda)) {
      EXPECT_NEAR(ours, lemma8, 1e-12 * lemma8);
    }
  }
}

// --- brute force: the recursion evaluated over every position -----------------

// delta_k with every product and every position of the differing row
// enumerated update by update (no closed forms).
double brute_force(const StepSchedule& s, const LossConstants& k, const ShardedShape& sh) {
  auto rho = [&](double t) {
    const double eta = s.at(static_cast<std::uint64_t>(t));
    return k.strong_convexity > 0 ? 1.0 - eta * (s.kind == ScheduleKind::StronglyConvex ? s.gamma : k.strong_convexity)
                                  : 1.0;
  };
  const double U = static_cast<double>(sh.updates_per_epoch()), b = static_cast<double>(sh.batch_size);
  double delta = 0;
  for (int e = 0; e < sh.epochs; ++e) {
    double contraction = 0, injection = 0;
    for (std::size_t i = 0; i < sh.shard_rows.size(); ++i) {
      const std::int64_t ns = sh.shard_rows[i];
      if (ns == 0) continue;
      const double te = e * U, end = te + static_cast<double>(sh.shard_updates(i));
      double c = 1;
      for (double u = te + 1; u <= end; ++u) c *= rho(u);
      double inject = 0;
      for (int p = 0; p < sh.local_passes; ++p) {
        double best = 0;
        for (std::int64_t q = p * ns; q < (p + 1) * ns; ++q) {  // every row position of the pass
          const double tau = te + static_cast<double>(q / sh.batch_size) + 1;
          double w = s.at(static_cast<std::uint64_t>(tau));
          for (double u = tau + 1; u <= end; ++u) w *= rho(u);
          best = std::max(best, w);
        }
        inject += best;
      }
      contraction += sh.weight(i) * c;
      injection = std::max(injection, sh.weight(i) * 2 * k.lipschitz / b * inject);
    }
    delta = contraction * delta + injection;
  }
  return delta;
}

TEST(DistributedSensitivity, ClosedFormsMatchTheBruteForceRecursion) {
  std::mt19937_64 gen(4043);
  auto integer = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::int64_t> rows(integer(1, 6));
    for (auto& r : rows) r = integer(0, 30);
    if (std::all_of(rows.begin(), rows.end(), [](std::int64_t r) { return r == 0; })) rows[0] = 1;
    const ShardedShape sh = shape(rows, integer(1, 8), integer(1, 5), integer(1, 3));
    const double beta = 1.0 + integer(0, 4), lambda = std::pow(10.0, -integer(0, 3)) * 0.9;
    const std::vector<std::pair<StepSchedule, LossConstants>> cases = {
        {constant(2.0 / beta), constants(1, beta, 0)},
        {decreasing(ScheduleKind::Decreasing, beta, integer(0, 5)), constants(1, beta, 0)},
        {decreasing(ScheduleKind::Sqrt, beta, integer(0, 5)), constants(1, beta, 0)},
        {constant(1.0 / (beta + lambda)), constants(2, beta + lambda, lambda)},
        {constant(0.3 / (beta + lambda)), constants(2, beta + lambda, lambda)},
        {strongly_convex(beta + lambda, lambda), constants(2, beta + lambda, lambda)},
    };
    for (const auto& [s, k] : cases) {
      const double expected = brute_force(s, k, sh);
      EXPECT_NEAR(sensitivity(s, k, sh).sensitivity, expected, 1e-12 * expected) << schedule_name(s.kind);
    }
  }
}

// --- refusals -------------------------------------------------------------------

TEST(DistributedSensitivity, RefusesWhatItCannotBound) {
  EXPECT_THROW(sensitivity(constant(2.5), constants(1, 1, 0), shape({5}, 1, 1)), Error);          // eta > 2/beta
  EXPECT_THROW(sensitivity(constant(1.5), constants(1, 1, 0.5), shape({5}, 1, 1)), Error);        // eta > 1/beta
  EXPECT_THROW(sensitivity(constant(0.1), constants(1, 1, 0), shape({0, 0}, 1, 1)), Error);       // no rows
  EXPECT_THROW(sensitivity(constant(0.1), constants(1, 1, 0), shape({}, 1, 1)), Error);           // no shard
  EXPECT_THROW(sensitivity(constant(0.1), constants(1, 1, 0), shape({3, -1}, 1, 1)), Error);      // negative
  EXPECT_THROW(sensitivity(constant(0.1), constants(1, 1, 0), shape({3}, 0, 1)), Error);          // b = 0
  EXPECT_THROW(sensitivity(constant(0.1), constants(1, 1, 0), shape({3}, 1, 0)), Error);          // k = 0
  EXPECT_THROW(sensitivity(constant(0.1), constants(1, 1, 0), shape({3}, 1, 1, 0)), Error);       // P = 0
  StepSchedule inv = constant(0.1);
  inv.kind = ScheduleKind::InverseSqrt;
  EXPECT_THROW(sensitivity(inv, constants(1, 1, 0), shape({3}, 1, 1)), Error);
}

}  // namespace
}  // namespace dptrain::privacy::distributed
