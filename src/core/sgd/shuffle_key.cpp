#include "core/sgd/shuffle_key.h"

#include <sodium.h>

#include <cmath>
#include <string>

#include "core/error.h"

namespace dptrain::sgd {

static_assert(crypto_shorthash_siphash24_BYTES == 8 && crypto_shorthash_siphash24_KEYBYTES == 16,
              "SipHash-2-4 has a 128-bit key and a 64-bit output");

privacy::RandomSource::Key run_shuffle_key(std::optional<std::uint64_t> seed) {
  if (seed) {
    auto rng = privacy::RandomSource::seeded(*seed, kShuffleKeyStream);
    return privacy::draw_key(rng);
  }
  auto rng = privacy::RandomSource::secure();
  return privacy::draw_key(rng);
}

EpochShuffleKey epoch_shuffle_key(const privacy::RandomSource::Key& run_key, std::uint64_t epoch) {
  unsigned char in[24] = {'d', 'p', 't', 'r', 'a', 'i', 'n', '-', 's', 'h', 'u', 'f', 'f', 'l', 'e', ':'};
  for (int i = 0; i < 8; ++i) in[16 + i] = static_cast<unsigned char>(epoch >> (8 * i));
  EpochShuffleKey key;
  if (crypto_generichash(key.data(), key.size(), in, sizeof(in), run_key.data(), run_key.size()) != 0)
    fail(ErrorKind::Internal, "BLAKE2b failed");
  return key;
}

std::int64_t shuffle_key(std::int64_t row_key, const EpochShuffleKey& key) {
  const auto r = static_cast<std::uint64_t>(row_key);
  unsigned char in[8], out[8];
  for (int i = 0; i < 8; ++i) in[i] = static_cast<unsigned char>(r >> (8 * i));
  crypto_shorthash_siphash24(out, in, sizeof(in), key.data());
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(out[i]) << (8 * i);
  return static_cast<std::int64_t>(v);
}

SplitKey split_key_of(const privacy::RandomSource::Key& run_key) {
  static const unsigned char kMessage[] = {'d', 'p', 't', 'r', 'a', 'i', 'n', '-', 's', 'p', 'l', 'i', 't', ':'};
  SplitKey key;
  if (crypto_generichash(key.data(), key.size(), kMessage, sizeof(kMessage), run_key.data(), run_key.size()) != 0)
    fail(ErrorKind::Internal, "BLAKE2b failed");
  return key;
}

SplitKey tuning_split_key(std::optional<std::uint64_t> seed) {
  auto rng = seed ? privacy::RandomSource::seeded(*seed, kSplitKeyStream) : privacy::RandomSource::secure();
  return split_key_of(privacy::draw_key(rng));
}

int tuning_part(std::int64_t row_key, const SplitKey& key, int parts) {
  if (parts < 1 || parts > kMaxSplitParts)
    fail(ErrorKind::InvalidParameter, "a tuning split has between 1 and " + std::to_string(kMaxSplitParts) + " parts",
         "Got " + std::to_string(parts) + ".");
  const auto h = static_cast<std::uint64_t>(shuffle_key(row_key, key));
  return static_cast<int>(h % static_cast<std::uint64_t>(parts)) + 1;
}

EpochShuffleWords epoch_key_to_words(const EpochShuffleKey& key) {
  EpochShuffleWords w{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) w[i] |= static_cast<std::uint32_t>(key[4 * i + j]) << (8 * j);
  return w;
}

EpochShuffleKey epoch_key_from_words(const double* words, std::size_t count) {
  if (count != 4)
    fail(ErrorKind::InvalidParameter, "a shuffle key has 4 words",
         "Got " + std::to_string(count) + " values.", "Pass the epoch key the training run computed.");
  EpochShuffleKey key;
  for (int i = 0; i < 4; ++i) {
    const double w = words[i];
    if (!(w >= 0 && w <= 4294967295.0 && std::floor(w) == w))
      fail(ErrorKind::InvalidParameter, "a shuffle key word must be an integer in [0, 2^32)");
    const auto v = static_cast<std::uint32_t>(w);
    for (int j = 0; j < 4; ++j) key[4 * i + j] = static_cast<unsigned char>(v >> (8 * j));
  }
  return key;
}

}  // namespace dptrain::sgd
