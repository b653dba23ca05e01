// Permutations computed where the rows are: a keyed hash of each row's key.
//
// On a distributed table the epoch's permutation has to be drawn on every
// shard (setseed() only reaches the coordinator, and ORDER BY random() is
// not reproducible). Ordering the rows by
//     shuffle_key(row key, epoch key)
// gives every shard a uniformly random permutation of its rows (SipHash-2-4
// is a pseudorandom function: distinct row keys get independent-looking
// 64-bit values, ties have probability ~ n^2 / 2^65), the same permutation
// for the same key on any node and in any plan, and a new one every epoch.
//
//   run key    256 bits: RandomSource::secure() (default) or derived from the
//              test seed (then the run is reproducible and marked seeded)
//   epoch key  128 bits = BLAKE2b-128(key = run key, "dptrain-shuffle:" || epoch, 8 bytes LE)
//   row value  SipHash-2-4(epoch key, row key as 8 bytes LE), read as a signed
//              64-bit little-endian integer (what ORDER BY compares)
//
// Privacy: Bolt-on's analysis holds for any permutation that does not depend
// on the rows' contents (Wu et al. 2017, Lemma 5 fixes the permutation); it
// needs no secrecy of the key. The row key must therefore not be data: a
// surrogate key (id) that the neighbouring table keeps for the replaced row,
// the same condition as the shard membership (docs/distributed.md). It must
// be unique per row for a reproducible order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/privacy/random_source.h"

namespace dptrain::sgd {

using EpochShuffleKey = std::array<unsigned char, 16>;
using EpochShuffleWords = std::array<std::uint32_t, 4>;  // word i = bytes 4i..4i+3, little-endian

// ChaCha20 stream of RandomSource::seeded(seed, stream) that seeded runs take
// their shuffle key from ("shuffle" in ASCII).
constexpr std::uint64_t kShuffleKeyStream = 0x73'68'75'66'66'6c'65;

// The run's shuffle key: from the OS CSPRNG, or from the test seed.
privacy::RandomSource::Key run_shuffle_key(std::optional<std::uint64_t> seed);

EpochShuffleKey epoch_shuffle_key(const privacy::RandomSource::Key& run_key, std::uint64_t epoch);

std::int64_t shuffle_key(std::int64_t row_key, const EpochShuffleKey& key);

// The epoch key as four 32-bit words: how it travels in a float8[] SQL
// argument (every word an exact double, like the noise key of epoch_state).
EpochShuffleWords epoch_key_to_words(const EpochShuffleKey& key);
// Throws Error(InvalidParameter) unless every value is an integer in [0, 2^32).
EpochShuffleKey epoch_key_from_words(const double* words, std::size_t count);

// --- The keyed split of private tuning on a distributed table ---------------
// (docs/tuning.md section 5). Bolt-on Algorithm 3 splits the table into
// l + 1 disjoint parts; on a distributed table the rows stay on their
// shards, so every row's part is computed where it is, from its key:
//
//   run key   256 bits: RandomSource::secure(), or (tests) the next 32 bytes of
//             RandomSource::seeded(seed, stream "split"), not the shuffle's stream
//   kappa     128 bits = BLAKE2b-128(key = run key, "dptrain-split:"): another
//             message than every epoch key's ("dptrain-shuffle:" || epoch), so
//             kappa is never an epoch key even under one run key
//   part(r)   SipHash-2-4(kappa, key(r)) as an unsigned 64-bit integer,
//             mod parts, plus 1 (parts are numbered 1..parts, as Pass::table)
//
// Privacy needs no secrecy of kappa, only that the split does not depend on
// the rows' contents (the key is a surrogate key the neighbouring table keeps
// for the replaced row). The modulo's bias is below parts / 2^64.
using SplitKey = EpochShuffleKey;

constexpr std::uint64_t kSplitKeyStream = 0x73'70'6c'69'74;  // "split" in ASCII

// A fresh kappa: from the OS CSPRNG, or from the test seed.
SplitKey tuning_split_key(std::optional<std::uint64_t> seed);
// kappa of a given run key (the derivation above; pinned by the unit test).
SplitKey split_key_of(const privacy::RandomSource::Key& run_key);

// The part (1..parts) of the row with key `row_key`. Throws
// Error(InvalidParameter) unless 1 <= parts <= kMaxSplitParts.
constexpr int kMaxSplitParts = 1001;
int tuning_part(std::int64_t row_key, const SplitKey& key, int parts);

}  // namespace dptrain::sgd
