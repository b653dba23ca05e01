#include "core/privacy/random_source.h"

#include <sodium.h>

#include <cstring>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

void ensure_sodium() {
  static const bool ok = sodium_init() >= 0;
  if (!ok) fail(ErrorKind::Internal, "libsodium failed to initialize");
}

}  // namespace

RandomSource::RandomSource(const Key& key, std::uint64_t stream, bool seeded)
    : key_(key), seeded_(seeded) {
  for (int i = 0; i < 8; ++i) nonce_[i] = static_cast<unsigned char>(stream >> (8 * i));
}

std::unique_ptr<RandomSource> RandomSource::secure() {
  ensure_sodium();
  Key key;
  randombytes_buf(key.data(), key.size());
  return std::unique_ptr<RandomSource>(new RandomSource(key, 0, false));
}

std::unique_ptr<RandomSource> RandomSource::seeded(std::uint64_t seed, std::uint64_t stream) {
  ensure_sodium();
  unsigned char in[16] = "dptrain-seed";
  for (int i = 0; i < 8; ++i) in[8 + i] = static_cast<unsigned char>(seed >> (8 * i));
  Key key;
  crypto_generichash(key.data(), key.size(), in, sizeof(in), nullptr, 0);
  return std::unique_ptr<RandomSource>(new RandomSource(key, stream, true));
}

std::unique_ptr<RandomSource> RandomSource::from_key(const Key& key, std::uint64_t stream) {
  ensure_sodium();
  return std::unique_ptr<RandomSource>(new RandomSource(key, stream, true));
}

void RandomSource::refill() {
  // crypto_stream_chacha20_xor_ic over zeros = the keystream from a block counter.
  std::memset(buffer_.data(), 0, buffer_.size());
  crypto_stream_chacha20_xor_ic(buffer_.data(), buffer_.data(), buffer_.size(), nonce_.data(),
                                block_counter_, key_.data());
  block_counter_ += buffer_.size() / 64;
  pos_ = 0;
}

void RandomSource::fill(void* out, std::size_t n) {
  auto* dst = static_cast<unsigned char*>(out);
  while (n > 0) {
    if (pos_ == buffer_.size()) refill();
    const std::size_t take = std::min(n, buffer_.size() - pos_);
    std::memcpy(dst, buffer_.data() + pos_, take);
    pos_ += take;
    dst += take;
    n -= take;
  }
}

std::uint64_t RandomSource::next_u64() {
  std::uint64_t v;
  fill(&v, sizeof(v));
  return v;
}

double RandomSource::uniform_open01() {
  // k / 2^53 with k uniform in [1, 2^53): every value is exactly
  // representable, never 0, never 1. (The former (k + 0.5) / 2^53 needed 54
  // significand bits: for k = 2^53 - 1 it rounded to exactly 1.0.)
  std::uint64_t k;
  do k = next_u64() >> 11;
  while (k == 0);
  return static_cast<double>(k) * 0x1.0p-53;
}

std::uint64_t RandomSource::uniform_below(std::uint64_t n) {
  if (n == 0) fail(ErrorKind::Internal, "uniform_below(0)");
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // reject the biased tail
  std::uint64_t v;
  do v = next_u64();
  while (v >= limit);
  return v % n;
}

}  // namespace dptrain::privacy
