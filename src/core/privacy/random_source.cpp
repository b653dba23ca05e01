#include "core/privacy/random_source.h"

#include <sodium.h>

#include <algorithm>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

// sodium_init() selects the vectorized ChaCha20 code and seeds randombytes;
// it is idempotent and thread safe, the static only spares the call after
// the first time (a source is started per mini-batch).
void ensure_sodium() {
  static const bool ready = sodium_init() >= 0;
  if (!ready) fail(ErrorKind::Internal, "libsodium failed to initialize");
}

}  // namespace

RandomSource::RandomSource(const Key& key, std::uint64_t stream, bool seeded) : key_(key), seeded_(seeded) {
  ensure_sodium();
  for (int i = 0; i < 8; ++i) nonce_[i] = static_cast<unsigned char>(stream >> (8 * i));
}

RandomSource RandomSource::secure() {
  ensure_sodium();
  Key key;
  randombytes_buf(key.data(), key.size());
  return RandomSource(key, 0, false);
}

RandomSource RandomSource::seeded(std::uint64_t seed, std::uint64_t stream) {
  ensure_sodium();
  // BLAKE2b-256 of "dptrain-" followed by the seed's 8 little-endian bytes.
  unsigned char in[16] = {'d', 'p', 't', 'r', 'a', 'i', 'n', '-'};
  for (int i = 0; i < 8; ++i) in[8 + i] = static_cast<unsigned char>(seed >> (8 * i));
  Key key;
  crypto_generichash(key.data(), key.size(), in, sizeof(in), nullptr, 0);
  return RandomSource(key, stream, true);
}

RandomSource RandomSource::from_key(const Key& key, std::uint64_t stream) { return RandomSource(key, stream, true); }

void RandomSource::refill() {
  // crypto_stream_chacha20_xor_ic over zeros = the keystream from block `block_`.
  std::memset(buffer_, 0, sizeof(buffer_));
  crypto_stream_chacha20_xor_ic(buffer_, buffer_, sizeof(buffer_), nonce_, block_, key_.data());
  block_ += sizeof(buffer_) / 64;
  pos_ = 0;
}

void RandomSource::fill(void* out, std::size_t n) {
  auto* dst = static_cast<unsigned char*>(out);
  while (n > 0) {
    if (pos_ == kBufferBytes) refill();
    const std::size_t take = std::min(n, kBufferBytes - pos_);
    std::memcpy(dst, buffer_ + pos_, take);
    pos_ += take;
    dst += take;
    n -= take;
  }
}

std::uint64_t RandomSource::uniform_below(std::uint64_t n) {
  if (n == 0) fail(ErrorKind::Internal, "uniform_below(0)");
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // reject the biased tail
  std::uint64_t v;
  do v = next_u64();
  while (v >= limit);
  return v % n;
}

KeyWords key_to_words(const RandomSource::Key& key) {
  KeyWords w{};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) w[i] |= static_cast<std::uint32_t>(key[4 * i + j]) << (8 * j);
  return w;
}

RandomSource::Key key_from_words(const KeyWords& words) {
  RandomSource::Key key;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) key[4 * i + j] = static_cast<unsigned char>(words[i] >> (8 * j));
  return key;
}

RandomSource::Key draw_key(RandomSource& rng) {
  RandomSource::Key key;
  rng.fill(key.data(), key.size());
  return key;
}

}  // namespace dptrain::privacy
