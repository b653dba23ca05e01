#include "core/dpsgd/lot_state.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/privacy/batch_noise.h"
#include "core/privacy/parameter_checks.h"
#include "core/sgd/divergence.h"
#include "core/sgd/projection.h"

namespace dptrain::dpsgd::lot_state {
namespace {

// 2^53: counters above it are not exact doubles.
constexpr double kMaxCounter = 9007199254740992.0;

double* first(double* s) { return s + kHeaderSize + parameters(s); }
double* second(double* s) { return s + kHeaderSize + 2 * parameters(s); }
double* sum(double* s) { return s + kHeaderSize + 3 * parameters(s); }

void invalid(const std::string& what) {
  fail(ErrorKind::InvalidState, "malformed DP-SGD lot state", what,
       "The state must come from dptrain itself (lot_state::make_state).");
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }
bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0; }
bool whole(double v, double lo, double hi) { return std::floor(v) == v && v >= lo && v <= hi; }

// g~ = (sum + N(0, (sigma C)^2 I)) / (q n) + lambda theta, in place of the sum.
void noisy_gradient(double* s, std::uint64_t t) {
  const std::size_t n = parameters(s);
  double* g = sum(s);
  privacy::add_batch_noise(privacy::BatchNoiseKind::Gaussian, s[kNoiseStd], key(s), t, g, n);
  const double inv_lot = 1 / s[kExpectedLot];
  const double lambda = s[kLambda];
  const double* w = theta(s);
  for (std::size_t i = 0; i < n; ++i) g[i] = g[i] * inv_lot + lambda * w[i];
}

void project(double* s) {
  const double radius = s[kRadius];
  if (radius <= 0) return;
  const std::size_t d = static_cast<std::size_t>(dim(s));
  for (int k = 0; k < models(s); ++k) project_l2_ball(theta(s) + k * d, d, radius);
}

void step(double* s, std::uint64_t t) {
  const std::size_t n = parameters(s);
  const double* g = sum(s);
  const double alpha = s[kLearningRate];
  switch (static_cast<OptimizerKind>(s[kOptimizer])) {
    case OptimizerKind::Sgd:
      sgd_step(theta(s), g, n, alpha, static_cast<StepDecay>(s[kDecay]), t);
      break;
    case OptimizerKind::Momentum: momentum_step(theta(s), first(s), g, n, alpha, s[kMomentum]); break;
    case OptimizerKind::Adam:
      adam_step(theta(s), first(s), second(s), g, n, t, alpha, s[kBeta1], s[kBeta2], s[kXi]);
      break;
    case OptimizerKind::AdamWosm: adam_wosm_step(theta(s), first(s), g, n, t, alpha, s[kBeta1]); break;
    case OptimizerKind::Adadp:
      if (t % 2 == 1) {
        adadp_first_half(theta(s), first(s), second(s), g, n, s[kEta]);
      } else {
        const AdadpOutcome o = adadp_second_half(theta(s), first(s), second(s), g, n, s[kEta], s[kTolerance]);
        s[kEta] = o.next_eta;
        s[o.accepted ? kAccepted : kRejected] += 1;
      }
      break;
  }
}

// A step or lambda far too large makes the weights overflow; the next call's validate()
// called that a malformed state, one that "must come from dptrain itself".
void require_finite_model(const double* s, std::uint64_t t) {
  const std::size_t n = 3 * parameters(s);  // theta and the optimizer's two moments
  for (std::size_t i = kHeaderSize; i < kHeaderSize + n; ++i)
    if (!std::isfinite(s[i]))
      fail_diverged("DP-SGD", "At lot " + std::to_string(t) + " (learning rate " +
                                  privacy::short_number(s[kLearningRate]) + ", lambda " +
                                  privacy::short_number(s[kLambda]) + ").");
}

// Ends the current lot: noise, divide, step, project; the next lot starts with a zero sum.
void end_lot(double* s) {
  const std::uint64_t t = current_lot(s);
  noisy_gradient(s, t);
  step(s, t);
  project(s);
  require_finite_model(s, t);
  std::fill(sum(s), sum(s) + parameters(s), 0.0);
  s[kLot] = static_cast<double>(t + 1);
}

}  // namespace

privacy::RandomSource::Key key(const double* s) {
  privacy::KeyWords w{};
  for (int i = 0; i < 8; ++i) w[i] = static_cast<std::uint32_t>(s[kKey + i]);
  return privacy::key_from_words(w);
}

std::size_t state_length(int dim, int models) {
  return kHeaderSize + 4 * static_cast<std::size_t>(dim) * static_cast<std::size_t>(models);
}

std::vector<double> make_state(const LotConfig& c, const privacy::RandomSource::Key& key, bool seeded) {
  const LinearModels& m = c.models;
  if (m.dim < 1 || m.models < 1 || static_cast<std::int64_t>(m.dim) * m.models > kMaxParameters)
    fail(ErrorKind::ProgramLimit, "DP-SGD: K x d out of range",
         "d = " + std::to_string(m.dim) + ", K = " + std::to_string(m.models));
  std::vector<double> s(state_length(m.dim, m.models), 0.0);
  s[kMagic] = kMagicValue;
  s[kVersion] = kVersionValue;
  s[kDim] = m.dim;
  s[kModels] = m.models;
  s[kLoss] = static_cast<double>(m.loss);
  s[kHuberH] = m.huber_h;
  s[kRows] = static_cast<double>(c.rows);
  s[kSamplingRate] = c.sampling_rate;
  s[kClipNorm] = c.clip_norm;
  s[kNoiseStd] = c.noise_std;
  s[kExpectedLot] = c.expected_lot;
  s[kOptimizer] = static_cast<double>(c.optimizer);
  s[kLearningRate] = c.learning_rate;
  s[kDecay] = static_cast<double>(c.decay);
  s[kMomentum] = c.momentum;
  s[kBeta1] = c.beta1;
  s[kBeta2] = c.beta2;
  s[kXi] = c.xi;
  s[kTolerance] = c.tolerance;
  s[kRadius] = c.radius;
  s[kLambda] = c.lambda;
  s[kSeeded] = seeded ? 1 : 0;
  const privacy::KeyWords words = privacy::key_to_words(key);
  for (int i = 0; i < 8; ++i) s[kKey + i] = words[i];
  s[kLot] = 1;
  s[kLastLot] = 0;
  s[kEta] = c.learning_rate;
  validate(s.data(), s.size());
  return s;
}

void validate(const double* s, std::size_t len) {
  if (len < kHeaderSize) invalid("too short");
  if (s[kMagic] != kMagicValue || s[kVersion] != kVersionValue) invalid("magic or version");
  if (!whole(s[kDim], 1, kMaxParameters) || !whole(s[kModels], 1, kMaxParameters) ||
      s[kDim] * s[kModels] > kMaxParameters)
    invalid("dimensions");
  if (len != state_length(dim(s), models(s))) invalid("length does not match K x d");
  if (!whole(s[kLoss], 0, 1) || !whole(s[kOptimizer], 0, 4) || !whole(s[kDecay], 0, 1) || !whole(s[kSeeded], 0, 1))
    invalid("enum field");
  if (!finite_positive(s[kClipNorm]) || !finite_positive(s[kNoiseStd]) || !finite_positive(s[kExpectedLot]))
    invalid("clip norm, noise and expected lot size must be finite and > 0");
  if (!finite_positive(s[kHuberH]) || !finite_positive(s[kLearningRate]) || !finite_non_negative(s[kMomentum]) ||
      !finite_non_negative(s[kBeta1]) || !(s[kBeta1] < 1) || !finite_non_negative(s[kBeta2]) || !(s[kBeta2] < 1) ||
      !finite_non_negative(s[kXi]) || !finite_positive(s[kTolerance]) || !finite_non_negative(s[kRadius]) ||
      !finite_non_negative(s[kLambda]) || !finite_positive(s[kEta]))
    invalid("optimizer parameter");
  for (int i = 0; i < 8; ++i)
    if (!whole(s[kKey + i], 0, 4294967295.0)) invalid("key word");
  if (!whole(s[kLot], 1, kMaxCounter) || !whole(s[kLastLot], 0, kMaxCounter) || s[kLastLot] < s[kLot] - 1)
    invalid("lot counters");
  if (!whole(s[kAccepted], 0, kMaxCounter) || !whole(s[kRejected], 0, kMaxCounter)) invalid("ADADP counters");
  if (!whole(s[kRows], 0, kMaxCounter) || !(s[kSamplingRate] > 0 && s[kSamplingRate] <= 1) ||
      !(std::abs(s[kSamplingRate] * s[kRows] - s[kExpectedLot]) <= 1e-9 * s[kExpectedLot]))
    invalid("rows, sampling rate and expected lot size disagree");
  for (std::size_t i = kHeaderSize; i < len; ++i)
    if (!std::isfinite(s[i])) invalid("non-finite model or optimizer value");
}

LotConfig config_of(const double* s) {
  LotConfig c;
  c.models = {dim(s), models(s), static_cast<LossKind>(s[kLoss]), s[kHuberH]};
  c.rows = rows(s);
  c.sampling_rate = sampling_rate(s);
  c.clip_norm = s[kClipNorm];
  c.noise_std = s[kNoiseStd];
  c.expected_lot = s[kExpectedLot];
  c.optimizer = static_cast<OptimizerKind>(s[kOptimizer]);
  c.learning_rate = s[kLearningRate];
  c.decay = static_cast<StepDecay>(s[kDecay]);
  c.momentum = s[kMomentum];
  c.beta1 = s[kBeta1];
  c.beta2 = s[kBeta2];
  c.xi = s[kXi];
  c.tolerance = s[kTolerance];
  c.radius = s[kRadius];
  c.lambda = s[kLambda];
  return c;
}

void set_last_lot(double* s, std::uint64_t last) {
  if (static_cast<double>(last) < s[kLot] - 1 || static_cast<double>(last) >= kMaxCounter ||
      last >= privacy::kLotNonceBit)
    fail(ErrorKind::InvalidState, "DP-SGD: the pass would end before the lots already done",
         "last lot " + std::to_string(last) + ", lots done " + std::to_string(lots_done(s)));
  s[kLastLot] = static_cast<double>(last);
}

void add_row(double* s, const double* x, int label, std::uint64_t lot) {
  if (lot < current_lot(s) || static_cast<double>(lot) > s[kLastLot])
    fail(ErrorKind::InvalidState, "DP-SGD: a row of lot " + std::to_string(lot) + " arrived out of order",
         "current lot " + std::to_string(current_lot(s)) + ", last lot of the pass " +
             std::to_string(static_cast<std::uint64_t>(s[kLastLot])));
  while (current_lot(s) < lot) end_lot(s);
  const LinearModels m{dim(s), models(s), static_cast<LossKind>(s[kLoss]), s[kHuberH]};
  add_clipped_gradient(m, theta(s), x, label, s[kClipNorm], sum(s));
}

void finish(double* s) {
  while (static_cast<double>(current_lot(s)) <= s[kLastLot]) end_lot(s);
}

}  // namespace dptrain::dpsgd::lot_state
