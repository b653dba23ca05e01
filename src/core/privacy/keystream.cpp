#include "core/privacy/keystream.h"

#include <sodium.h>

#include <cstring>

#include "core/error.h"

namespace dptrain::privacy {

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

Keystream::Keystream(const RandomSource::Key& key, std::uint64_t nonce) : key_(key) {
  // sodium_init() selects the vectorized ChaCha20 code; it is idempotent
  // and thread safe, the static only spares the call after the first time.
  static const bool sodium_ready = sodium_init() >= 0;
  if (!sodium_ready) fail(ErrorKind::Internal, "libsodium failed to initialize");
  for (int i = 0; i < 8; ++i) nonce_[i] = static_cast<unsigned char>(nonce >> (8 * i));
}

void Keystream::refill() {
  // As RandomSource::refill: the keystream is ChaCha20 applied to zeros,
  // starting at block `block_` (64 bytes per block).
  std::memset(buffer_, 0, sizeof(buffer_));
  crypto_stream_chacha20_xor_ic(buffer_, buffer_, sizeof(buffer_), nonce_, block_, key_.data());
  block_ += sizeof(buffer_) / 64;
  pos_ = 0;
}

std::uint64_t Keystream::uniform_below(std::uint64_t n) {
  if (n == 0) fail(ErrorKind::Internal, "uniform_below(0)");
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // reject the biased tail
  std::uint64_t v;
  do v = next_u64();
  while (v >= limit);
  return v % n;
}

}  // namespace dptrain::privacy
