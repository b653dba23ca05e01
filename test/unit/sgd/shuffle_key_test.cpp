// The keyed shuffle of distributed epochs (src/core/sgd/shuffle_key.h):
// pinned to the published SipHash-2-4 vector and to values computed with an
// independent implementation (Python: hashlib.blake2b for the epoch key, a
// from-the-paper SipHash-2-4 that reproduces the reference vectors), the
// permutations it induces are uniform (chi-square), and seeded run keys are
// reproducible.
#include "core/sgd/shuffle_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include "core/error.h"

namespace dptrain::sgd {
namespace {

TEST(ShuffleKey, IsSipHash24OfTheRowKey) {
  // SipHash reference vector (Aumasson & Bernstein, test vector for the
  // 8-byte message 00 01 .. 07 under the key 00 01 .. 0f):
  // 62 24 93 9a 79 f5 f5 93 = 0x93f5f5799a932462 little-endian = -7785046478206851998.
  EpochShuffleKey key;
  std::iota(key.begin(), key.end(), 0);
  EXPECT_EQ(shuffle_key(0x0706050403020100LL, key), -7785046478206851998LL);
}

TEST(ShuffleKey, EpochKeyIsKeyedBlake2b) {
  // hashlib.blake2b(b"dptrain-shuffle:" + (3).to_bytes(8, "little"),
  //                 digest_size=16, key=bytes(range(32))) = 40220324 b4fba26b 55128467 e18b977f
  privacy::RandomSource::Key run;
  std::iota(run.begin(), run.end(), 0);
  const EpochShuffleKey k = epoch_shuffle_key(run, 3);
  const EpochShuffleWords words = epoch_key_to_words(k);
  EXPECT_EQ(words, (EpochShuffleWords{604185152u, 1805843380u, 1736708693u, 2140638177u}));
  // SipHash-2-4 under that key of the rows 1, 42, -5 (8 bytes little-endian).
  EXPECT_EQ(shuffle_key(1, k), 1856585678764622558LL);
  EXPECT_EQ(shuffle_key(42, k), -2636961939320569042LL);
  EXPECT_EQ(shuffle_key(-5, k), -1228669586618686054LL);
  // Every epoch has its own key.
  EXPECT_NE(epoch_shuffle_key(run, 4), k);
}

TEST(ShuffleKey, WordsRoundTripAndBadWordsAreRefused) {
  privacy::RandomSource::Key run{};
  const EpochShuffleKey k = epoch_shuffle_key(run, 0);
  const EpochShuffleWords w = epoch_key_to_words(k);
  const double d[4] = {double(w[0]), double(w[1]), double(w[2]), double(w[3])};
  EXPECT_EQ(epoch_key_from_words(d, 4), k);
  EXPECT_THROW(epoch_key_from_words(d, 3), Error);
  for (double bad : {-1.0, 4294967296.0, 0.5, std::nan("")}) {
    double e[4] = {d[0], bad, d[2], d[3]};
    EXPECT_THROW(epoch_key_from_words(e, 4), Error) << bad;
  }
}

TEST(ShuffleKey, SeededRunKeysAreReproducible) {
  EXPECT_EQ(run_shuffle_key(7), run_shuffle_key(7));
  EXPECT_NE(run_shuffle_key(7), run_shuffle_key(8));
  // The shuffle stream is not the noise stream of the same seed.
  auto noise = privacy::RandomSource::seeded(7);
  EXPECT_NE(run_shuffle_key(7), privacy::draw_key(noise));
  EXPECT_NE(run_shuffle_key(std::nullopt), run_shuffle_key(std::nullopt));
}

// The order of rows 10, 20, 30, 40 by shuffle key, over 24000 epochs of one
// run key: each of the 4! = 24 permutations has probability 1/24. Pearson's
// chi-square with 23 degrees of freedom stays below 49.73 (the 0.999
// quantile) for a uniform shuffle; the run key is fixed, so the test is
// deterministic.
TEST(ShuffleKey, PermutationsAreUniform) {
  privacy::RandomSource::Key run{};
  run[0] = 17;
  const std::vector<std::int64_t> rows = {10, 20, 30, 40};
  std::map<std::vector<std::int64_t>, int> counts;
  const int epochs = 24000;
  for (int e = 0; e < epochs; ++e) {
    const EpochShuffleKey k = epoch_shuffle_key(run, static_cast<std::uint64_t>(e));
    std::vector<std::int64_t> order = rows;
    std::sort(order.begin(), order.end(),
              [&](std::int64_t a, std::int64_t b) { return shuffle_key(a, k) < shuffle_key(b, k); });
    ++counts[order];
  }
  ASSERT_EQ(counts.size(), 24u);
  const double expected = epochs / 24.0;
  double chi2 = 0;
  for (const auto& [order, c] : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 49.73);
}

}  // namespace
}  // namespace dptrain::sgd
