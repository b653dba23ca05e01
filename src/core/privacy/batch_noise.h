// The per-mini-batch noise of the white-box algorithms (SCS13, BST14) and
// the streams of a white-box run. No sampler of its own: the noise is drawn
// by samplers.h from a RandomSource started on the stack for each update, and
// added in place to the gradient sum of the batch, with no allocation on
// the per-batch path.
//
// Streams of one training run share its 256-bit key (drawn from
// RandomSource::secure(), or from a test seed) and are separated by the
// 64-bit nonce (RandomSource::from_key(key, nonce)):
//   noise of update t (t >= 1, global update index;
//   DP-SGD: lot t)                                        nonce t
//   DP-SGD Poisson sampling of lot t (t >= 1)             nonce 2^62 + t
//   BST14 batch sampling of the epoch that starts after
//   u0 updates                                            nonce 2^63 + u0
// so no two streams of a run ever overlap (t < 2^62).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/privacy/random_source.h"

namespace dptrain::privacy {

enum class BatchNoiseKind {
  None = 0,
  Gaussian = 1,   // N(0, scale^2 I): scale = sigma
  L2Laplace = 2,  // density prop. to exp(-||z|| / scale): scale = sensitivity / epsilon
};

const char* batch_noise_name(BatchNoiseKind kind);

constexpr std::uint64_t kSamplingNonceBit = std::uint64_t{1} << 63;
constexpr std::uint64_t kLotNonceBit = std::uint64_t{1} << 62;

// The nonce of the noise of update t (1 <= t < 2^63, else Error(Internal)).
std::uint64_t noise_nonce(std::uint64_t t);
// The nonce of DP-SGD's Poisson sampling of lot t (1 <= t < 2^62, else Error(Internal)).
std::uint64_t lot_nonce(std::uint64_t t);
// The nonce of BST14's batch sampling for the epoch that starts after
// `epoch_start_updates` (< 2^63, else Error(Internal)) updates.
std::uint64_t sampling_nonce(std::uint64_t epoch_start_updates);

// Throws Error(InvalidParameter) unless noise of `kind` and `scale` on n coordinates can be
// drawn (samplers.h: positive, finite, no draw rounding to inf). For the plans, before the charge.
void require_batch_noise_scale(BatchNoiseKind kind, double scale, std::size_t n);

// The noise of update t of a run: RandomSource::from_key(key, noise_nonce(t)),
// then the noise of `kind` added to out[0..n) (add_gaussian_noise or
// add_l2_laplace_noise). For L2Laplace a thread-local scratch buffer holds
// the direction (allocated once per dimension, never per batch).
void add_batch_noise(BatchNoiseKind kind, double scale, const RandomSource::Key& key, std::uint64_t t,
                     double* out, std::size_t n);

}  // namespace dptrain::privacy
