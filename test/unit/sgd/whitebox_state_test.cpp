// The white-box noise hook of the epoch aggregate (epoch_state.h): noise on
// the gradient sum at the end of every batch from the stream of its update
// index, the key in 32-bit words, validation, combine refusal, sampled
// batches.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/privacy/batch_noise.h"
#include "core/sgd/epoch_state.h"

namespace dptrain {
namespace {

namespace es = epoch_state;
using privacy::BatchNoiseKind;

privacy::KeyWords words(std::uint32_t seed) {
  privacy::KeyWords w;
  for (int i = 0; i < 8; ++i) w[i] = seed * 2654435761u + static_cast<std::uint32_t>(i) * 40503u;
  return w;
}

es::EpochConfig noisy_config(BatchNoiseKind kind, double scale, int d = 4, std::int64_t b = 2) {
  es::EpochConfig c;
  c.dim = d;
  c.batch_size = b;
  c.schedule.kind = ScheduleKind::Constant;
  c.schedule.eta = 0.5;
  c.noise = kind;
  c.noise_scale = scale;
  c.noise_key = words(7);
  return c;
}

// The gradient sum of logistic loss at w = 0 for rows (x, y): l'(0) = -1/2,
// so each row adds -y x / 2.
void add_zero_w_gradient(std::vector<double>& acc, const std::vector<double>& x, double y) {
  for (std::size_t i = 0; i < x.size(); ++i) acc[i] += -0.5 * y * x[i];
}

TEST(WhiteBoxState, GaussianNoiseOfUpdateTGoesOnTheGradientSum) {
  const es::EpochConfig c = noisy_config(BatchNoiseKind::Gaussian, 3.0);
  std::vector<double> s = es::make_state(c, nullptr, 10);  // 10 updates done: the next is t = 11
  const std::vector<double> x1 = {0.1, 0.2, -0.3, 0.4}, x2 = {-0.5, 0.1, 0.0, 0.2};
  es::add_row(s.data(), x1.data(), 4, 1.0);
  es::add_row(s.data(), x2.data(), 4, -1.0);  // batch full: one noisy update

  std::vector<double> acc(4, 0.0);
  add_zero_w_gradient(acc, x1, 1.0);
  add_zero_w_gradient(acc, x2, -1.0);
  privacy::add_batch_noise(BatchNoiseKind::Gaussian, 3.0, privacy::key_from_words(c.noise_key), 11, acc.data(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(es::weights(s.data())[i], -(0.5 / 2) * acc[i]) << i;
  EXPECT_EQ(es::updates(s.data()), 11u);
  // The noise is really there: far from the noiseless step (sigma = 3 on the sum).
  double diff = 0;
  for (int i = 0; i < 4; ++i) diff += std::abs(es::weights(s.data())[i] + 0.25 * (-0.5 * x1[i] + 0.5 * x2[i]));
  EXPECT_GT(diff, 0.01);
}

TEST(WhiteBoxState, L2LaplaceNoiseOfUpdateT) {
  const es::EpochConfig c = noisy_config(BatchNoiseKind::L2Laplace, 2.0, 3, 1);
  std::vector<double> s = es::make_state(c, nullptr, 0);
  const std::vector<double> x = {0.3, 0.0, 0.4};
  es::add_row(s.data(), x.data(), 3, 1.0);
  std::vector<double> acc(3, 0.0);
  add_zero_w_gradient(acc, x, 1.0);
  privacy::add_batch_noise(BatchNoiseKind::L2Laplace, 2.0, privacy::key_from_words(c.noise_key), 1, acc.data(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(es::weights(s.data())[i], -0.5 * acc[i]);
}

TEST(WhiteBoxState, EveryBatchHasItsOwnStreamAndRunsAreReproducible) {
  const es::EpochConfig c = noisy_config(BatchNoiseKind::Gaussian, 1.0, 3, 1);
  const std::vector<double> zero = {0.0, 0.0, 0.0};
  auto run = [&](const es::EpochConfig& cfg) {
    std::vector<double> s = es::make_state(cfg, nullptr, 0);
    std::vector<std::vector<double>> iterates;
    for (int i = 0; i < 3; ++i) {
      es::add_row(s.data(), zero.data(), 3, 1.0);
      iterates.emplace_back(es::weights(s.data()), es::weights(s.data()) + 3);
    }
    return iterates;
  };
  const auto a = run(c), b = run(c);
  EXPECT_EQ(a, b);  // a function of (key, t) only
  // Zero gradients: the increments are the noise of updates 1, 2, 3, all different.
  EXPECT_NE(a[0][0], a[1][0] - a[0][0]);
  EXPECT_NE(a[1][0] - a[0][0], a[2][0] - a[1][0]);
  es::EpochConfig other = c;
  other.noise_key[3] ^= 1;
  EXPECT_NE(run(other)[0], a[0]);  // another key, other noise
}

TEST(WhiteBoxState, PartialLastBatchIsNoisyToo) {
  const es::EpochConfig c = noisy_config(BatchNoiseKind::Gaussian, 1.0, 2, 5);
  std::vector<double> s = es::make_state(c, nullptr, 0);
  const std::vector<double> zero = {0.0, 0.0};
  es::add_row(s.data(), zero.data(), 2, 1.0);
  es::flush(s.data());
  EXPECT_EQ(es::updates(s.data()), 1u);
  EXPECT_NE(es::weights(s.data())[0], 0.0);
}

TEST(WhiteBoxState, NoiselessStatesAreUnchanged) {
  es::EpochConfig c = noisy_config(BatchNoiseKind::None, 0.0);
  c.noise_key = {};
  std::vector<double> s = es::make_state(c, nullptr, 0);
  for (int f = es::kNoiseFirst; f < es::kHeaderSize; ++f) EXPECT_EQ(s[f], 0.0) << f;
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4};
  es::add_row(s.data(), x.data(), 4, 1.0);
  es::add_row(s.data(), x.data(), 4, 1.0);
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(es::weights(s.data())[i], -0.25 * (-x[i]));
}

TEST(WhiteBoxState, ValidateChecksTheNoiseFields) {
  const std::vector<double> good = es::make_state(noisy_config(BatchNoiseKind::Gaussian, 2.0), nullptr, 0);
  es::validate(good.data(), good.size());
  EXPECT_EQ(good[es::kNoiseKind], 1.0);
  EXPECT_EQ(good[es::kNoiseScale], 2.0);
  EXPECT_EQ(good[es::kNoiseKey + 2], static_cast<double>(words(7)[2]));
  auto broken = [&](int field, double value) {
    std::vector<double> s = good;
    s[field] = value;
    return s;
  };
  for (const auto& s : {broken(es::kNoiseKind, 3), broken(es::kNoiseKind, 0.5), broken(es::kNoiseScale, 0),
                        broken(es::kNoiseScale, -1), broken(es::kNoiseScale, NAN), broken(es::kNoiseSeeded, 2),
                        broken(es::kNoiseKey, 4294967296.0), broken(es::kNoiseKey + 7, 1.5),
                        broken(es::kNoiseKey + 1, -1), broken(es::kSampledBatches, 2),
                        broken(es::kSampledBatch, 3), broken(es::kShardSumHigh + 1, 1),
                        broken(es::kHeaderSize - 1, 1)})
    EXPECT_THROW(es::validate(s.data(), s.size()), Error);
  // Without a noise kind, every noise field must be zero.
  std::vector<double> plain = es::make_state(noisy_config(BatchNoiseKind::None, 0.0), nullptr, 0);
  plain[es::kNoiseKey] = 0;  // (make_state writes no key without noise or sampling)
  es::validate(plain.data(), plain.size());
  plain[es::kNoiseKey + 4] = 5;
  EXPECT_THROW(es::validate(plain.data(), plain.size()), Error);
  plain[es::kNoiseKey + 4] = 0;
  plain[es::kNoiseScale] = 1;
  EXPECT_THROW(es::validate(plain.data(), plain.size()), Error);
}

TEST(WhiteBoxState, SurvivesATextRoundTrip) {
  // As a float8[] through its text form (PostgreSQL prints doubles with the
  // shortest exact representation; %.17g is exact as well).
  es::EpochConfig c = noisy_config(BatchNoiseKind::Gaussian, 1.7);
  c.noise_key = {0xffffffffu, 0, 1, 0x80000000u, 123456789u, 0xdeadbeefu, 42, 7};
  std::vector<double> s = es::make_state(c, nullptr, 3);
  const std::vector<double> x = {0.1, -0.2, 0.3, 0.05};
  es::add_row(s.data(), x.data(), 4, 1.0);
  std::vector<double> back;
  for (double v : s) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    back.push_back(std::strtod(buf, nullptr));
  }
  es::validate(back.data(), back.size());
  EXPECT_TRUE(es::same_run(s.data(), back.data()));
  EXPECT_EQ(es::config_of(back.data()).noise_key, c.noise_key);
  es::add_row(s.data(), x.data(), 4, -1.0);
  es::add_row(back.data(), x.data(), 4, -1.0);
  EXPECT_EQ(s, back);  // the same noise after the round trip
}

TEST(WhiteBoxState, NoisyStatesAreNeverCombined) {
  const es::EpochConfig c = noisy_config(BatchNoiseKind::Gaussian, 1.0);
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4};
  std::vector<double> a = es::make_state(c, nullptr, 0), b = es::make_state(c, nullptr, 0);
  es::add_row(a.data(), x.data(), 4, 1.0);  // pending, not flushed
  const std::vector<double> a_before = a;
  es::combine(a.data(), a.size(), b.data(), b.size());  // b empty: identity, nothing flushed
  EXPECT_EQ(a, a_before);
  std::vector<double> empty = es::make_state(c, nullptr, 0);
  es::combine(empty.data(), empty.size(), a.data(), a.size());  // empty into: a copy
  EXPECT_EQ(empty, a);
  es::add_row(b.data(), x.data(), 4, 1.0);
  EXPECT_THROW(es::combine(a.data(), a.size(), b.data(), b.size()), Error);
  // Another key is another run.
  es::EpochConfig other = c;
  other.noise_key[0] += 1;
  std::vector<double> o = es::make_state(other, nullptr, 0);
  EXPECT_THROW(es::combine(o.data(), o.size(), b.data(), b.size()), Error);
}

TEST(WhiteBoxState, SampledBatchesMustArriveWholeAndInOrder) {
  es::EpochConfig c = noisy_config(BatchNoiseKind::Gaussian, 1.0, 2, 3);
  c.sampled_batches = true;
  const std::vector<double> x = {0.1, 0.2};
  std::vector<double> s = es::make_state(c, nullptr, 0);
  EXPECT_THROW(es::add_row(s.data(), x.data(), 2, 1.0), Error);  // not a permutation epoch
  EXPECT_THROW(es::add_sampled_row(s.data(), x.data(), 2, 1.0, 2), Error);  // must start at batch 1
  for (int i = 0; i < 3; ++i) es::add_sampled_row(s.data(), x.data(), 2, 1.0, 1);
  EXPECT_EQ(es::updates(s.data()), 1u);
  EXPECT_EQ(s[es::kSampledBatch], 1.0);
  es::add_sampled_row(s.data(), x.data(), 2, 1.0, 2);
  EXPECT_THROW(es::add_sampled_row(s.data(), x.data(), 2, 1.0, 3), Error);  // batch 2 ended early
  EXPECT_THROW(es::flush(s.data()), Error);                                // incomplete last batch
  es::add_sampled_row(s.data(), x.data(), 2, 1.0, 2);
  es::add_sampled_row(s.data(), x.data(), 2, 1.0, 2);
  EXPECT_THROW(es::add_sampled_row(s.data(), x.data(), 2, 1.0, 2), Error);  // batch 2 is over
  es::flush(s.data());
  EXPECT_EQ(es::updates(s.data()), 2u);
  EXPECT_EQ(es::rows(s.data()), 6u);
  es::validate(s.data(), s.size());
  // A permutation state refuses sampled rows.
  std::vector<double> p = es::make_state(noisy_config(BatchNoiseKind::Gaussian, 1.0, 2, 3), nullptr, 0);
  EXPECT_THROW(es::add_sampled_row(p.data(), x.data(), 2, 1.0, 1), Error);
}

}  // namespace
}  // namespace dptrain
