// Random bits for privacy noise: the one random source of dptrain.
//
// A RandomSource is a ChaCha20 keystream (libsodium, the original cipher
// with a 64-bit nonce): key K (256 bits), nonce N (the 64-bit `stream`
// argument, little-endian) and 64-byte blocks at counter 0, 1, 2, ...; the
// bytes are exactly those of
//   crypto_stream_chacha20_xor_ic(zeros, len, N, 0, K)
// read from the start (a unit test checks this across refills, and pins the
// cipher to its published zero-key test vector). What differs between
// sources is where the key comes from:
//   * secure() (the default for noise): randombytes_buf, i.e. the operating
//     system's CSPRNG, so nobody (including a seeded test) can predict it;
//   * seeded(seed, stream) (tests and reproducible runs only): the key is
//     BLAKE2b-256 of the 16 bytes "dptrain-" || seed (little-endian); models
//     trained this way are flagged as not private;
//   * from_key(key, stream): an explicit key, e.g. the per-run key of the
//     white-box algorithms, which travels inside the epoch aggregate's state
//     as eight 32-bit words (KeyWords below); every mini-batch then reads its
//     own stream (batch_noise.h lists the nonces of a run).
//
// The object is meant to be cheap to start, because the epoch aggregate
// starts one per mini-batch: it lives on the stack (no allocation), its
// buffer is 512 bytes (8 blocks, the chunk libsodium's vectorized ChaCha20
// handles at once), nothing is zeroed up front, and next_u64() and
// uniform_open01() are inline. A source cannot be copied or moved (a copy
// would replay the same noise); the named constructors return it by value
// (C++17 guaranteed copy elision): `auto rng = RandomSource::seeded(1);`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dptrain::privacy {

class RandomSource {
 public:
  using Key = std::array<unsigned char, 32>;

  // Secure source keyed from the OS CSPRNG.
  static RandomSource secure();
  // Deterministic source for tests; `stream` separates independent streams
  // derived from one seed (e.g. one per class or per epoch).
  static RandomSource seeded(std::uint64_t seed, std::uint64_t stream = 0);
  // Deterministic source from an explicit key (a stream whose key travels
  // inside an aggregate state).
  static RandomSource from_key(const Key& key, std::uint64_t stream = 0);

  RandomSource(const RandomSource&) = delete;
  RandomSource& operator=(const RandomSource&) = delete;

  // True unless the key came from the OS (seeded() and from_key()).
  bool is_seeded() const { return seeded_; }

  std::uint64_t next_u64() {
    if (pos_ == kBufferBytes) refill();
    std::uint64_t v;
    std::memcpy(&v, buffer_ + pos_, sizeof(v));
    pos_ += sizeof(v);
    return v;
  }
  // Uniform on the open interval (0, 1): k / 2^53 with k uniform in
  // [1, 2^53) (the top 53 bits of a word; k = 0 is redrawn). Every value is
  // exactly representable, never 0, never 1.
  double uniform_open01() {
    std::uint64_t k;
    do k = next_u64() >> 11;
    while (k == 0);
    return static_cast<double>(k) * 0x1.0p-53;
  }
  // Uniform on [0, n), n >= 1, without modulo bias (rejection).
  std::uint64_t uniform_below(std::uint64_t n);
  // The next n bytes of the stream.
  void fill(void* out, std::size_t n);

 private:
  static constexpr std::size_t kBufferBytes = 512;

  RandomSource(const Key& key, std::uint64_t stream, bool seeded);
  void refill();

  Key key_;
  unsigned char nonce_[8];
  std::uint64_t block_ = 0;  // counter of the next block to generate
  alignas(64) unsigned char buffer_[kBufferBytes];
  std::size_t pos_ = kBufferBytes;
  bool seeded_;
};

// The key as eight 32-bit words (word i = bytes 4i..4i+3, little-endian).
// This is how it travels inside a float8[] aggregate state: every word is an
// integer in [0, 2^32), exactly representable as a double, so the state
// survives a text round trip (never store raw bit patterns in a double).
using KeyWords = std::array<std::uint32_t, 8>;

KeyWords key_to_words(const RandomSource::Key& key);
RandomSource::Key key_from_words(const KeyWords& words);

// A fresh 256-bit key: the next 32 bytes of `rng` (RandomSource::secure()
// in production).
RandomSource::Key draw_key(RandomSource& rng);

}  // namespace dptrain::privacy
