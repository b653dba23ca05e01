// The state of a DP-SGD run between lots: an ordinary float8[] (like the Bismarck epoch
// state, epoch_state.h) so that one aggregate can run many lots per query and an
// in-memory driver can run the same code. Layout, all values exact doubles:
//
//   [0, kHeaderSize)   header (Field below)
//   theta   K*d        the model(s) at which the current lot's gradients are taken
//   first   K*d        momentum v | Adam m | AdamWOSM m | ADADP theta0 (pair start)
//   second  K*d        Adam v | ADADP theta1 (the full step)
//   sum     K*d        sum of the current lot's clipped per-example gradients
//
// Rows arrive tagged with their lot t (lots in increasing order; rows of one lot in any
// order). The first row of a later lot, or finish(), ends every lot before it: the sum
// gets N(0, (sigma C)^2 I_{Kd}) from RandomSource::from_key(key, noise_nonce(t)), is
// divided by the EXPECTED lot size q n (Abadi et al. 2016, Algorithm 1: (1/L)(sum of
// clipped gradients + N(0, sigma^2 C^2 I)); never the realised size |L_t| of seed 004's
// Algorithm 2, which is secret and data-dependent under add/remove-one), plus lambda theta if regularized, and the
// optimizer steps (optimizers.h), then projects each model onto ||w_k|| <= R if a radius
// is set. A lot with no rows (possible under Poisson sampling) still adds its noise and
// steps: whether a lot is empty never changes what is computed.
//
// The sum is the only noiseless value in the state; it is zero after finish(), so the
// state a pass returns holds only post-processing of noisy lots (and the secret key:
// states never leave the run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dpsgd/clipped_gradient.h"
#include "core/dpsgd/optimizers.h"
#include "core/privacy/random_source.h"

namespace dptrain::dpsgd {

// The public, planned parameters of a run's lots (plan.h fills it).
struct LotConfig {
  LinearModels models{0, 1, LossKind::Logistic, kDefaultHuberH};
  std::int64_t rows = 0;    // n, numbered 1..n (public)
  double sampling_rate = 0;  // q: lot t includes each row with probability q (poisson_lots.h)
  double clip_norm = 1;     // C
  double noise_std = 0;     // sigma C, on the sum; > 0
  double expected_lot = 1;  // q n, the divisor (must equal sampling_rate * rows)
  OptimizerKind optimizer = OptimizerKind::Sgd;
  double learning_rate = 0;  // alpha; ADADP: the initial eta
  StepDecay decay = StepDecay::Constant;
  double momentum = 0;
  double beta1 = 0.9, beta2 = 0.999, xi = 1e-8;
  double tolerance = 1;  // ADADP tau
  double radius = 0;     // 0: no projection
  double lambda = 0;     // L2 regularization (its gradient lambda theta is data-independent)
};

namespace lot_state {

enum Field : int {
  kMagic = 0,
  kVersion,
  kDim,
  kModels,
  kLoss,
  kHuberH,
  kClipNorm,
  kNoiseStd,
  kExpectedLot,
  kOptimizer,
  kLearningRate,
  kDecay,
  kMomentum,
  kBeta1,
  kBeta2,
  kXi,
  kTolerance,
  kRadius,
  kLambda,
  kSeeded,        // 1 = the key comes from a test seed (NOT private)
  kKey,           // kKey .. kKey+7: the run's 256-bit key as 32-bit words
  kLot = kKey + 8,  // the lot being accumulated (lots 1 .. kLot-1 are done)
  kLastLot,       // the last lot of this pass: finish() ends every lot through it
  kEta,           // ADADP: current step size
  kAccepted,      // ADADP: accepted pairs
  kRejected,      // ADADP: rejected pairs
  kRows,          // n
  kSamplingRate,  // q
  kHeaderSize = 40,
};

constexpr double kMagicValue = 1146114924.0;  // "DPSl" as an integer
constexpr int kVersionValue = 1;
constexpr std::int64_t kMaxParameters = 10'000'000;

std::size_t state_length(int dim, int models);

// A fresh run: theta = 0 (theta0 = 0 for linear models), lot 1 next, no pass limit yet.
std::vector<double> make_state(const LotConfig& config, const privacy::RandomSource::Key& key, bool seeded);

// Error(InvalidState) unless s is a well-formed state of len values.
void validate(const double* s, std::size_t len);
LotConfig config_of(const double* s);

// The pass that follows ends with lot `last` (>= the current lot).
void set_last_lot(double* s, std::uint64_t last);

// One row (d features, label as in clipped_gradient.h) of lot `lot`: ends the lots before
// it, then adds the row's clipped gradient. Error(InvalidState) if `lot` is before the
// current lot or after the pass's last lot.
void add_row(double* s, const double* x, int label, std::uint64_t lot);

// Ends every lot through the pass's last lot (empty ones included).
void finish(double* s);

inline int dim(const double* s) { return static_cast<int>(s[kDim]); }
inline int models(const double* s) { return static_cast<int>(s[kModels]); }
inline std::size_t parameters(const double* s) { return static_cast<std::size_t>(dim(s)) * models(s); }
// Lots done so far (each one a noisy release the accountant counts).
inline std::uint64_t lots_done(const double* s) { return static_cast<std::uint64_t>(s[kLot]) - 1; }
inline std::uint64_t current_lot(const double* s) { return static_cast<std::uint64_t>(s[kLot]); }
inline bool seeded(const double* s) { return s[kSeeded] != 0.0; }
inline std::int64_t rows(const double* s) { return static_cast<std::int64_t>(s[kRows]); }
inline double sampling_rate(const double* s) { return s[kSamplingRate]; }
inline std::uint64_t last_lot(const double* s) { return static_cast<std::uint64_t>(s[kLastLot]); }
// The run's secret key (lots and noise streams).
privacy::RandomSource::Key key(const double* s);
inline const double* theta(const double* s) { return s + kHeaderSize; }
inline double* theta(double* s) { return s + kHeaderSize; }
inline double adadp_eta(const double* s) { return s[kEta]; }
inline std::uint64_t adadp_accepted(const double* s) { return static_cast<std::uint64_t>(s[kAccepted]); }
inline std::uint64_t adadp_rejected(const double* s) { return static_cast<std::uint64_t>(s[kRejected]); }

}  // namespace lot_state
}  // namespace dptrain::dpsgd
