// The DP-SGD lot state machine (lot_state.h): noise on the sum, division by the expected lot
// size, empty lots, lot order, passes, validation.
#include "core/dpsgd/lot_state.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/dpsgd/in_memory.h"
#include "core/error.h"
#include "core/privacy/batch_noise.h"
#include "core/privacy/samplers.h"

namespace dptrain::dpsgd {
namespace {

privacy::RandomSource::Key key(unsigned char v) {
  privacy::RandomSource::Key k{};
  k.fill(v);
  return k;
}

LotConfig sgd_config(int d, double noise_std, double expected_lot, double alpha) {
  LotConfig c;
  c.models = {d, 1, LossKind::Logistic, kDefaultHuberH};
  c.rows = 1000;
  c.sampling_rate = expected_lot / 1000;
  c.clip_norm = 1;
  c.noise_std = noise_std;
  c.expected_lot = expected_lot;
  c.optimizer = OptimizerKind::Sgd;
  c.learning_rate = alpha;
  return c;
}

// The first normals of the noise stream of lot t.
std::vector<double> noise_of_lot(const privacy::RandomSource::Key& k, std::uint64_t t, std::size_t n) {
  std::vector<double> z(n);
  privacy::RandomSource rng = privacy::RandomSource::from_key(k, privacy::noise_nonce(t));
  privacy::fill_standard_normal(rng, z.data(), n);
  return z;
}

TEST(LotState, OneLotIsClippedSumPlusNoiseOverExpectedLotSize) {
  // d = 2, theta0 = 0, two rows in lot 1: x1 = (0.6, 0.8) label 1, x2 = (1, 0) label 0.
  // At theta = 0: G1 = -0.5 x1 = (-0.3, -0.4), G2 = +0.5 x2 = (0.5, 0); C = 1 clips neither.
  // g~ = (G1 + G2 + 2 z) / 4 (noise std sigma C = 2, expected lot 4); theta = -0.5 g~.
  const auto k = key(1);
  std::vector<double> s = lot_state::make_state(sgd_config(2, 2.0, 4.0, 0.5), k, true);
  lot_state::set_last_lot(s.data(), 1);
  const double x1[2] = {0.6, 0.8}, x2[2] = {1, 0};
  lot_state::add_row(s.data(), x1, 1, 1);
  lot_state::add_row(s.data(), x2, 0, 1);
  EXPECT_EQ(lot_state::lots_done(s.data()), 0u);
  lot_state::finish(s.data());
  EXPECT_EQ(lot_state::lots_done(s.data()), 1u);
  const auto z = noise_of_lot(k, 1, 2);
  const double g0 = (-0.3 + 0.5 + 2 * z[0]) / 4, g1 = (-0.4 + 0 + 2 * z[1]) / 4;
  EXPECT_NEAR(lot_state::theta(s.data())[0], -0.5 * g0, 1e-15);
  EXPECT_NEAR(lot_state::theta(s.data())[1], -0.5 * g1, 1e-15);
}

TEST(LotState, EmptyLotsStillAddNoiseAndStep) {
  // No rows at all: lots 1..3 each step with their own noise: theta = -alpha sum_t (sigma C z_t) / L.
  const auto k = key(2);
  std::vector<double> s = lot_state::make_state(sgd_config(3, 1.5, 10.0, 0.2), k, true);
  lot_state::set_last_lot(s.data(), 3);
  lot_state::finish(s.data());
  EXPECT_EQ(lot_state::lots_done(s.data()), 3u);
  for (int j = 0; j < 3; ++j) {
    double expected = 0;
    for (std::uint64_t t = 1; t <= 3; ++t) expected -= 0.2 * 1.5 * noise_of_lot(k, t, 3)[j] / 10.0;
    EXPECT_NEAR(lot_state::theta(s.data())[j], expected, 1e-15) << j;
  }
  // A row of lot 5 in a pass ending at 6 ends the (empty) lot 4 first, at the same noise.
  lot_state::set_last_lot(s.data(), 6);
  const double x[3] = {0, 0, 1};
  lot_state::add_row(s.data(), x, 1, 5);
  EXPECT_EQ(lot_state::current_lot(s.data()), 5u);
  lot_state::finish(s.data());
  EXPECT_EQ(lot_state::lots_done(s.data()), 6u);
}

TEST(LotState, RegularizerAndProjection) {
  // theta = 0 so lambda theta = 0 at lot 1; radius 1e-3 then caps the first step's norm.
  const auto k = key(3);
  LotConfig c = sgd_config(4, 1.0, 1.0, 1.0);
  c.radius = 1e-3;
  c.lambda = 0.5;
  std::vector<double> s = lot_state::make_state(c, k, true);
  lot_state::set_last_lot(s.data(), 1);
  lot_state::finish(s.data());
  double norm2 = 0;
  for (int j = 0; j < 4; ++j) norm2 += lot_state::theta(s.data())[j] * lot_state::theta(s.data())[j];
  EXPECT_NEAR(std::sqrt(norm2), 1e-3, 1e-15);
  // Lot 2 without projection: g~ = sigma C z / L + lambda theta.
  std::vector<double> before(lot_state::theta(s.data()), lot_state::theta(s.data()) + 4);
  s[lot_state::kRadius] = 0;
  lot_state::set_last_lot(s.data(), 2);
  lot_state::finish(s.data());
  const auto z = noise_of_lot(k, 2, 4);
  for (int j = 0; j < 4; ++j)
    EXPECT_NEAR(lot_state::theta(s.data())[j], before[j] - (z[j] + 0.5 * before[j]), 1e-15) << j;
}

TEST(LotState, AdadpAlternatesHalvesAndCountsPairs) {
  LotConfig c = sgd_config(2, 1.0, 100.0, 0.01);
  c.optimizer = OptimizerKind::Adadp;
  c.tolerance = 1.0;
  std::vector<double> s = lot_state::make_state(c, key(4), true);
  EXPECT_EQ(lot_state::adadp_eta(s.data()), 0.01);
  lot_state::set_last_lot(s.data(), 6);
  lot_state::finish(s.data());
  // Tiny steps: err << tau, every pair accepted and eta grows by 1.1 per pair.
  EXPECT_EQ(lot_state::adadp_accepted(s.data()), 3u);
  EXPECT_EQ(lot_state::adadp_rejected(s.data()), 0u);
  EXPECT_NEAR(lot_state::adadp_eta(s.data()), 0.01 * 1.1 * 1.1 * 1.1, 1e-15);
}

TEST(LotState, RowsMustArriveInLotOrderInsideThePass) {
  std::vector<double> s = lot_state::make_state(sgd_config(2, 1.0, 5.0, 0.1), key(5), true);
  const double x[2] = {0.6, 0.8};
  EXPECT_THROW(lot_state::add_row(s.data(), x, 1, 1), Error);  // no pass set: last lot 0
  lot_state::set_last_lot(s.data(), 4);
  lot_state::add_row(s.data(), x, 1, 3);
  EXPECT_THROW(lot_state::add_row(s.data(), x, 1, 2), Error);  // lot 2 is done
  EXPECT_THROW(lot_state::add_row(s.data(), x, 1, 5), Error);  // beyond the pass
  EXPECT_THROW(lot_state::set_last_lot(s.data(), 1), Error);  // before the lots already done
  EXPECT_THROW(lot_state::add_row(s.data(), x, 2, 3), Error);  // binary label out of range
}

TEST(LotState, ValidateRejectsCorruptStates) {
  const std::vector<double> good = lot_state::make_state(sgd_config(2, 1.0, 5.0, 0.1), key(6), false);
  EXPECT_NO_THROW(lot_state::validate(good.data(), good.size()));
  EXPECT_THROW(lot_state::validate(good.data(), good.size() - 1), Error);
  for (int field : {lot_state::kMagic, lot_state::kDim, lot_state::kOptimizer, lot_state::kNoiseStd,
                    lot_state::kExpectedLot, lot_state::kKey, lot_state::kLot}) {
    std::vector<double> bad = good;
    bad[field] = field == lot_state::kNoiseStd ? 0.0 : -1.0;
    EXPECT_THROW(lot_state::validate(bad.data(), bad.size()), Error) << field;
  }
  std::vector<double> nan = good;
  nan.back() = NAN;
  EXPECT_THROW(lot_state::validate(nan.data(), nan.size()), Error);
  const LotConfig back = lot_state::config_of(good.data());
  EXPECT_EQ(back.models.dim, 2);
  EXPECT_EQ(back.noise_std, 1.0);
  EXPECT_FALSE(lot_state::seeded(good.data()));
}

TEST(LotState, PassLengthDoesNotChangeTheRun) {
  // The same run in passes of 1, 7 and 1000 lots: identical states (the aggregate may run
  // any number of lots per query).
  const int n = 300, d = 3;
  std::vector<double> x(n * d);
  std::vector<int> labels(n);
  privacy::RandomSource rng = privacy::RandomSource::seeded(9);
  privacy::fill_standard_normal(rng, x.data(), x.size());
  for (int i = 0; i < n; ++i) labels[i] = static_cast<int>(rng.uniform_below(2));
  const LabeledRows data{x.data(), labels.data(), n, d};
  DpSgdRequest r;
  r.algorithm = "dpadam";
  r.rows = n;
  r.dim = d;
  r.expected_lot = 30;
  r.steps = 40;
  r.noise_multiplier = 1.0;
  r.delta = 1e-5;
  const DpSgdPlan plan = plan_dpsgd(r);
  const auto one = train_in_memory(plan, data, key(7), true, 1);
  const auto seven = train_in_memory(plan, data, key(7), true, 7);
  const auto all = train_in_memory(plan, data, key(7), true, 1000);
  EXPECT_EQ(one, seven);
  EXPECT_EQ(one, all);
  EXPECT_EQ(lot_state::lots_done(all.data()), 40u);
  EXPECT_NE(train_in_memory(plan, data, key(8), true, 1000), all);  // another key: other lots and noise
}

}  // namespace
}  // namespace dptrain::dpsgd
