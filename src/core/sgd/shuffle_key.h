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

}  // namespace dptrain::sgd
