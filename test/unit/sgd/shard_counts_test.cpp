// The fingerprint of the multiset of per-shard row counts
// (src/core/sgd/shard_counts.h) and how the epoch state's combine builds it
// (src/core/sgd/epoch_state.h, version 2): order-independent, equal for
// equal multisets, different for a rewrite that keeps n and the largest
// shard, the same for any order and grouping of the combines, and absent
// from a state that does not count shards (a plain table's parallel workers).
#include "core/sgd/shard_counts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "core/sgd/epoch_state.h"
#include "core/sgd/sharded_epoch.h"
#include "core/sgd/shuffle_key.h"

namespace dptrain::sgd {
namespace {

CountKey iota_key() {
  CountKey k;
  std::iota(k.begin(), k.end(), 0);
  return k;
}

TEST(ShardCounts, KeysAndHashArePinned) {
  // hashlib.blake2b(b"dptrain-counts:" + (3).to_bytes(8, "little"),
  //                 digest_size=16, key=bytes(range(32))).hexdigest()
  //   = 86b30fc2 1201e84f 55fba455 7a1ad83c
  privacy::RandomSource::Key run;
  std::iota(run.begin(), run.end(), 0);
  const CountKey k = epoch_count_key(run, 3);
  const CountKey want = {0x86, 0xb3, 0x0f, 0xc2, 0x12, 0x01, 0xe8, 0x4f,
                         0x55, 0xfb, 0xa4, 0x55, 0x7a, 0x1a, 0xd8, 0x3c};
  EXPECT_EQ(k, want);
  EXPECT_NE(epoch_count_key(run, 4), k);       // a key per epoch
  EXPECT_NE(k, epoch_shuffle_key(run, 3));     // never the epoch's shuffle key
  // SipHash-2-4 of the paper's test vector (key 00..0f, message 00..07):
  // 62 24 93 9a 79 f5 f5 93, little-endian.
  EXPECT_EQ(count_hash(iota_key(), 0x0706050403020100ULL), 0x93f5f5799a932462ULL);
  // The same function as the (pinned) shuffle hash, read unsigned.
  for (std::uint64_t n : {0ULL, 1ULL, 250ULL, 1ULL << 40})
    EXPECT_EQ(count_hash(k, n), static_cast<std::uint64_t>(shuffle_key(static_cast<std::int64_t>(n), k)));
  // Two run keys from the OS CSPRNG differ.
  EXPECT_NE(run_count_key(), run_count_key());
}

TEST(ShardCounts, MultisetFingerprintByHand) {
  const CountKey k = iota_key();
  const CountFingerprint f = multiset_fingerprint(k, {3, 5, 0, 7});
  // Zeros (empty shards) skipped: 3 states, the sum of three hashes mod 2^64.
  EXPECT_EQ(f.states, 3u);
  EXPECT_EQ(f.sum, count_hash(k, 3) + count_hash(k, 5) + count_hash(k, 7));
  // Order-independent.
  EXPECT_EQ(multiset_fingerprint(k, {7, 0, 5, 3}), f);
  EXPECT_EQ(multiset_fingerprint(k, {5, 7, 3}), f);
  // Repeated counts count twice.
  EXPECT_EQ(multiset_fingerprint(k, {4, 4}).sum, 2 * count_hash(k, 4));
  EXPECT_NE(multiset_fingerprint(k, {4, 4}), multiset_fingerprint(k, {4}));
  EXPECT_EQ(multiset_fingerprint(k, {}), CountFingerprint{});
  EXPECT_EQ(shard_fingerprint(k, 0), CountFingerprint{});
}

TEST(ShardCounts, ARowMovedToAnotherShardIsSeenUnlessTheMultisetIsTheSame) {
  const CountKey k = epoch_count_key(privacy::RandomSource::Key{}, 0);
  // {n_a, n_b} -> {n_a - 1, n_b + 1}: the same n, a different multiset
  // unless n_b + 1 = n_a (then {n_a - 1, n_b + 1} = {n_b, n_a}).
  for (std::uint64_t a = 1; a <= 40; ++a)
    for (std::uint64_t b = 0; b <= 40; ++b) {
      const bool same = b + 1 == a;
      EXPECT_EQ(multiset_fingerprint(k, {a, b}) == multiset_fingerprint(k, {a - 1, b + 1}), same) << a << ", " << b;
    }
  // The rewrite the totals do not see: n = 1000 and the largest shard 260 kept.
  EXPECT_NE(multiset_fingerprint(k, {260, 250, 250, 240}), multiset_fingerprint(k, {260, 249, 250, 241}));
  // A shard emptied and another grown by as much: the number of states differs too.
  EXPECT_NE(multiset_fingerprint(k, {3, 0, 5}), multiset_fingerprint(k, {0, 0, 8}));
}

}  // namespace
}  // namespace dptrain::sgd

namespace dptrain::epoch_state {
namespace {

struct Rows {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  EpochConfig config;
  explicit Rows(bool counted) {
    for (int i = 0; i < 23; ++i) {
      x.push_back({std::sin(i * 0.7), std::cos(i * 1.3), 0.25});
      y.push_back(std::sin(i * 0.7) + 0.5 * std::cos(i * 1.3) > 0 ? 1.0 : -1.0);
    }
    config.dim = 3;
    config.batch_size = 2;
    config.schedule.kind = ScheduleKind::Constant;
    config.schedule.eta = 0.3;
    if (counted) {
      config.count_shards = true;
      config.count_key = sgd::epoch_count_key(privacy::RandomSource::Key{}, 5);
    }
  }
  // One shard's partial state: the start, then its rows (a pending batch left).
  std::vector<double> shard(const std::vector<int>& rows) const {
    std::vector<double> s = make_state(config, nullptr, 0);
    for (int i : rows) add_row(s.data(), x[i].data(), 3, y[i]);
    return s;
  }
};

std::vector<double> combined(std::vector<double> a, const std::vector<double>& b) {
  combine(a.data(), a.size(), b.data(), b.size());
  return a;
}

TEST(ShardCountsState, TheCombineFoldsEveryShardStateOnceInAnyOrderAndGrouping) {
  const Rows r(true);
  const std::vector<double> a = r.shard({0, 1, 2, 3, 4}), b = r.shard({5, 6, 7}), c = r.shard({8, 9, 10, 11, 12, 13, 14}),
                            empty = r.shard({});
  const sgd::CountFingerprint want = sgd::multiset_fingerprint(r.config.count_key, {5, 3, 7, 0});
  // A state never combined is one shard's.
  EXPECT_EQ(shard_fingerprint(a.data()), sgd::shard_fingerprint(r.config.count_key, 5));
  EXPECT_EQ(shard_fingerprint(empty.data()), sgd::CountFingerprint{});
  const std::vector<double> left = combined(combined(combined(a, b), c), empty);
  const std::vector<double> right = combined(a, combined(b, combined(c, empty)));
  const std::vector<double> swapped = combined(combined(empty, c), combined(b, a));
  for (const std::vector<double>* s : {&left, &right, &swapped}) {
    EXPECT_EQ(shard_fingerprint(s->data()), want);
    EXPECT_EQ((*s)[kShardStates], 3);
    EXPECT_EQ(rows(s->data()), 15u);
    EXPECT_NO_THROW(validate(s->data(), s->size()));
  }
  // The empty state is the identity of the fingerprint, on either side (the
  // combine flushes a's pending batch, nothing else), and a stays one shard's.
  for (const std::vector<double>& s : {combined(empty, a), combined(a, empty)}) {
    EXPECT_EQ(shard_fingerprint(s.data()), shard_fingerprint(a.data()));
    EXPECT_EQ(s[kShardStates], 0);
    EXPECT_EQ(rows(s.data()), 5u);
  }
  // sharded_epoch (Citus's flow in memory) gives the same fingerprint.
  const std::vector<double> start = make_state(r.config, nullptr, 0);
  const std::vector<double> e = sharded_epoch(start, {&r.x, &r.y}, {{0, 1, 2, 3, 4}, {}, {5, 6, 7}, {8, 9, 10, 11, 12, 13, 14}});
  EXPECT_EQ(shard_fingerprint(e.data()), want);
  // One shard moves a row to another (the total kept): another fingerprint.
  const std::vector<double> moved =
      sharded_epoch(start, {&r.x, &r.y}, {{0, 1, 2, 3}, {}, {5, 6, 7, 4}, {8, 9, 10, 11, 12, 13, 14}});
  EXPECT_EQ(rows(moved.data()), 15u);
  EXPECT_NE(shard_fingerprint(moved.data()), want);
  // The same multiset on other shards: the same fingerprint (the bound depends on the multiset).
  const std::vector<double> permuted =
      sharded_epoch(start, {&r.x, &r.y}, {{8, 9, 10, 11, 12, 13, 14}, {5, 6, 7}, {}, {0, 1, 2, 3, 4}});
  EXPECT_EQ(shard_fingerprint(permuted.data()), want);
}

TEST(ShardCountsState, AStateThatDoesNotCountShardsIsCombinedAsBefore) {
  // A plain table's parallel workers: no flag, no fingerprint, and the same
  // model as the counted states (the fields change nothing else).
  const Rows plain(false), counted(true);
  const std::vector<double> p = combined(combined(plain.shard({0, 1, 2}), plain.shard({3, 4, 5, 6})), plain.shard({7}));
  const std::vector<double> c =
      combined(combined(counted.shard({0, 1, 2}), counted.shard({3, 4, 5, 6})), counted.shard({7}));
  for (int f = kShardCounted; f <= kShardSumHigh; ++f) EXPECT_EQ(p[f], 0) << f;
  EXPECT_FALSE(counts_shards(p.data()));
  EXPECT_THROW(shard_fingerprint(p.data()), Error);
  EXPECT_TRUE(std::equal(p.begin() + kHeaderSize, p.end(), c.begin() + kHeaderSize));
  EXPECT_EQ(rows(p.data()), rows(c.data()));
  EXPECT_EQ(updates(p.data()), updates(c.data()));
  // A counted and an uncounted state (or two epochs' keys) are different runs.
  const std::vector<double> a = plain.shard({0}), b = counted.shard({1});
  std::vector<double> into = a;
  EXPECT_THROW(combine(into.data(), into.size(), b.data(), b.size()), Error);
  Rows other(true);
  other.config.count_key = sgd::epoch_count_key(privacy::RandomSource::Key{}, 6);
  const std::vector<double> d = other.shard({1});
  into = counted.shard({0});
  EXPECT_THROW(combine(into.data(), into.size(), d.data(), d.size()), Error);
}

TEST(ShardCountsState, BadFieldsAndOldVersionsAreRefused) {
  const Rows r(true);
  const std::vector<double> good = combined(r.shard({0, 1}), r.shard({2}));
  EXPECT_NO_THROW(validate(good.data(), good.size()));
  auto refused = [&](int field, double value) {
    std::vector<double> s = good;
    s[field] = value;
    return [s] { validate(s.data(), s.size()); };
  };
  EXPECT_THROW(refused(kShardCounted, 2)(), Error);
  EXPECT_THROW(refused(kShardKey, 4294967296.0)(), Error);
  EXPECT_THROW(refused(kShardKey + 1, 0.5)(), Error);
  EXPECT_THROW(refused(kShardSumLow, -1)(), Error);
  EXPECT_THROW(refused(kShardSumHigh, 4294967296.0)(), Error);
  EXPECT_THROW(refused(kShardStates, 1.5)(), Error);
  EXPECT_THROW(refused(kVersion, 1)(), Error);  // version 1 had no shard counts
  // A sum in a state never combined; fields without the flag; folds without rows.
  std::vector<double> raw = r.shard({0});
  raw[kShardSumLow] = 3;
  EXPECT_THROW(validate(raw.data(), raw.size()), Error);
  std::vector<double> unflagged = Rows(false).shard({0});
  unflagged[kShardStates] = 2;
  EXPECT_THROW(validate(unflagged.data(), unflagged.size()), Error);
  std::vector<double> none = r.shard({});
  none[kShardStates] = 2;
  EXPECT_THROW(validate(none.data(), none.size()), Error);
}

}  // namespace
}  // namespace dptrain::epoch_state
