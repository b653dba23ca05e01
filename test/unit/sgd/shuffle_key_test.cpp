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

// The keyed split of private tuning (docs/tuning.md section 5): kappa is
// BLAKE2b-128 keyed by the run key over "dptrain-split:" and part(r) is
// SipHash-2-4(kappa, r) mod parts + 1. Reference values from an independent
// implementation: hashlib.blake2b(b"dptrain-split:", digest_size=16,
// key=bytes(range(32))) = words 1868802292 741281027 4163011405 3696143168,
// and a from-the-paper SipHash-2-4 (it reproduces the reference vector above):
//   row 1: 2857353003977454706, row 42: 15961048714382926675,
//   row -5: 1294926672662538179 (unsigned), so mod 10 + 1: 7, 6, 10 and
//   mod 101 + 1: 30, 10, 55.
TEST(TuningSplit, KappaIsKeyedBlake2bAndPartIsSipHashModParts) {
  privacy::RandomSource::Key run;
  std::iota(run.begin(), run.end(), 0);
  const SplitKey kappa = split_key_of(run);
  EXPECT_EQ(epoch_key_to_words(kappa), (EpochShuffleWords{1868802292u, 741281027u, 4163011405u, 3696143168u}));
  EXPECT_EQ(tuning_part(1, kappa, 10), 7);
  EXPECT_EQ(tuning_part(42, kappa, 10), 6);
  EXPECT_EQ(tuning_part(-5, kappa, 10), 10);  // the hash read unsigned, never a negative part
  EXPECT_EQ(tuning_part(1, kappa, 101), 30);
  EXPECT_EQ(tuning_part(42, kappa, 101), 10);
  EXPECT_EQ(tuning_part(-5, kappa, 101), 55);
  EXPECT_EQ(tuning_part(12345, kappa, 1), 1);
  for (int bad : {0, -1, kMaxSplitParts + 1}) EXPECT_THROW(tuning_part(1, kappa, bad), Error) << bad;
}

// Domain separation: under one run key, kappa is none of the epoch keys;
// and a seed's kappa comes from its own stream ("split"), not the shuffle's
// or the noise's.
TEST(TuningSplit, KappaIsDomainSeparatedAndSeedsReproduce) {
  privacy::RandomSource::Key run{};
  const SplitKey kappa = split_key_of(run);
  for (std::uint64_t e = 0; e < 1000; ++e) ASSERT_NE(epoch_shuffle_key(run, e), kappa) << e;
  EXPECT_EQ(tuning_split_key(7), tuning_split_key(7));
  EXPECT_NE(tuning_split_key(7), tuning_split_key(8));
  EXPECT_NE(tuning_split_key(7), split_key_of(run_shuffle_key(7)));
  auto noise = privacy::RandomSource::seeded(7);
  EXPECT_NE(tuning_split_key(7), split_key_of(privacy::draw_key(noise)));
  auto split_stream = privacy::RandomSource::seeded(7, kSplitKeyStream);
  EXPECT_EQ(tuning_split_key(7), split_key_of(privacy::draw_key(split_stream)));
  EXPECT_NE(tuning_split_key(std::nullopt), tuning_split_key(std::nullopt));
}

// The parts of the keys 1..100000 under a fixed kappa: each of 10 parts has
// probability 1/10. Pearson's chi-square with 9 degrees of freedom stays
// below 27.88 (the 0.999 quantile) for a uniform split; deterministic.
// Also the sizes are Binomial(n, 1/(l+1)): each within 5 standard deviations
// (sqrt(100000 * 0.1 * 0.9) = 94.9) of 10000.
TEST(TuningSplit, PartsAreUniform) {
  privacy::RandomSource::Key run{};
  run[3] = 5;
  const SplitKey kappa = split_key_of(run);
  std::vector<int> counts(11, 0);
  const int n = 100000;
  for (std::int64_t r = 1; r <= n; ++r) ++counts[static_cast<std::size_t>(tuning_part(r, kappa, 10))];
  EXPECT_EQ(counts[0], 0);
  double chi2 = 0;
  for (int p = 1; p <= 10; ++p) {
    chi2 += (counts[p] - 10000.0) * (counts[p] - 10000.0) / 10000.0;
    EXPECT_NEAR(counts[p], 10000, 5 * 94.9) << p;
  }
  EXPECT_LT(chi2, 27.88);
}

}  // namespace
}  // namespace dptrain::sgd
