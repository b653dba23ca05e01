#include "core/sgd/shard_counts.h"

#include <sodium.h>

#include "core/error.h"

namespace dptrain::sgd {

privacy::RandomSource::Key run_count_key() {
  auto rng = privacy::RandomSource::secure();
  return privacy::draw_key(rng);
}

CountKey epoch_count_key(const privacy::RandomSource::Key& run_key, std::uint64_t epoch) {
  unsigned char in[23] = {'d', 'p', 't', 'r', 'a', 'i', 'n', '-', 'c', 'o', 'u', 'n', 't', 's', ':'};
  for (int i = 0; i < 8; ++i) in[15 + i] = static_cast<unsigned char>(epoch >> (8 * i));
  CountKey key;
  if (crypto_generichash(key.data(), key.size(), in, sizeof(in), run_key.data(), run_key.size()) != 0)
    fail(ErrorKind::Internal, "BLAKE2b failed");
  return key;
}

std::uint64_t count_hash(const CountKey& key, std::uint64_t rows) {
  unsigned char in[8], out[crypto_shorthash_siphash24_BYTES];
  for (int i = 0; i < 8; ++i) in[i] = static_cast<unsigned char>(rows >> (8 * i));
  crypto_shorthash_siphash24(out, in, sizeof(in), key.data());
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(out[i]) << (8 * i);
  return v;
}

CountFingerprint shard_fingerprint(const CountKey& key, std::uint64_t rows) {
  CountFingerprint f;
  if (rows == 0) return f;
  f.states = 1;
  f.sum = count_hash(key, rows);
  return f;
}

CountFingerprint multiset_fingerprint(const CountKey& key, const std::vector<std::uint64_t>& counts) {
  CountFingerprint f;
  for (std::uint64_t n : counts) f.add(shard_fingerprint(key, n));
  return f;
}

}  // namespace dptrain::sgd
