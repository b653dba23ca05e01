// Random bits for privacy noise.
//
// Every source is a ChaCha20 keystream (libsodium). What differs is where
// the 256-bit key comes from:
//   * secure (the default): randombytes_buf, i.e. the operating system's
//     CSPRNG, so nobody (including a seeded test) can predict the noise;
//   * seeded (tests only): the key is a hash of a 64-bit seed, so runs are
//     reproducible; models trained this way are flagged as not private.
// Bytes are produced in blocks, so drawing a noise vector costs one stream
// call per few hundred values, never a syscall per value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace dptrain::privacy {

class RandomSource {
 public:
  using Key = std::array<unsigned char, 32>;

  // Secure source keyed from the OS CSPRNG.
  static std::unique_ptr<RandomSource> secure();
  // Deterministic source for tests; `stream` separates independent streams
  // derived from one seed (e.g. one per class or per epoch).
  static std::unique_ptr<RandomSource> seeded(std::uint64_t seed, std::uint64_t stream = 0);
  // Deterministic source from an explicit key (used to resume a stream
  // whose key travels inside an aggregate state).
  static std::unique_ptr<RandomSource> from_key(const Key& key, std::uint64_t stream = 0);

  bool is_seeded() const { return seeded_; }

  void fill(void* out, std::size_t n);
  std::uint64_t next_u64();
  // Uniform on the open interval (0, 1): k / 2^53, k uniform in [1, 2^53).
  double uniform_open01();
  // Uniform on [0, n), without modulo bias.
  std::uint64_t uniform_below(std::uint64_t n);

 private:
  RandomSource(const Key& key, std::uint64_t stream, bool seeded);
  void refill();

  Key key_;
  std::array<unsigned char, 8> nonce_{};
  std::uint64_t block_counter_ = 0;
  std::array<unsigned char, 4096> buffer_{};
  std::size_t pos_ = sizeof(buffer_);
  bool seeded_;
};

}  // namespace dptrain::privacy
