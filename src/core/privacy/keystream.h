// A ChaCha20 keystream read in place, for randomness that must be cheap to
// start: the white-box algorithms (SCS13, BST14) draw a fresh noise vector
// at the end of every mini-batch inside the epoch aggregate, and BST14
// samples every batch from fresh secret randomness.
//
// Keystream(key, nonce) produces exactly the bytes of
// RandomSource::from_key(key, nonce) (same cipher, nonce layout and block
// counter; a unit test checks it), but it lives on the stack with a 512-byte
// buffer (8 ChaCha20 blocks, the chunk libsodium's vectorized code handles
// at once) instead of a heap object with a 4 KiB buffer, so starting a new
// stream per mini-batch costs one cipher call and no allocation.
//
// Streams of one training run share its 256-bit key (drawn from
// RandomSource::secure(), or from a test seed) and are separated by the
// 64-bit nonce:
//   noise of update t (t >= 1, global update index)      nonce t
//   BST14 batch sampling of the epoch that starts after
//   u0 updates                                            nonce 2^63 + u0
// so no two streams of a run ever overlap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/privacy/random_source.h"

namespace dptrain::privacy {

// The key as eight 32-bit words (word i = bytes 4i..4i+3, little-endian).
// This is how it travels inside a float8[] aggregate state: every word is an
// integer in [0, 2^32), exactly representable as a double, so the state
// survives a text round trip (never store raw bit patterns in a double).
using KeyWords = std::array<std::uint32_t, 8>;

KeyWords key_to_words(const RandomSource::Key& key);
RandomSource::Key key_from_words(const KeyWords& words);

// A fresh 256-bit key from `rng` (RandomSource::secure() in production).
RandomSource::Key draw_key(RandomSource& rng);

constexpr std::uint64_t kSamplingNonceBit = std::uint64_t{1} << 63;

class Keystream {
 public:
  Keystream(const RandomSource::Key& key, std::uint64_t nonce);
  Keystream(const Keystream&) = delete;
  Keystream& operator=(const Keystream&) = delete;

  std::uint64_t next_u64() {
    if (pos_ == sizeof(buffer_)) refill();
    std::uint64_t v;
    __builtin_memcpy(&v, buffer_ + pos_, sizeof(v));
    pos_ += sizeof(v);
    return v;
  }
  // k / 2^53 with k uniform in [1, 2^53): in (0, 1), the grid of
  // RandomSource::uniform_open01.
  double uniform_open01() {
    std::uint64_t k;
    do k = next_u64() >> 11;
    while (k == 0);
    return static_cast<double>(k) * 0x1.0p-53;
  }
  // Uniform on [0, n), n >= 1, without modulo bias (rejection).
  std::uint64_t uniform_below(std::uint64_t n);

 private:
  void refill();

  RandomSource::Key key_;
  unsigned char nonce_[8];
  std::uint64_t block_ = 0;
  alignas(64) unsigned char buffer_[512];
  std::size_t pos_ = sizeof(buffer_);
};

}  // namespace dptrain::privacy
