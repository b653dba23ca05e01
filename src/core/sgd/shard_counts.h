// The multiset of per-shard row counts an epoch on a distributed table saw,
// as a fingerprint the combine function builds on the coordinator
// (docs/distributed.md section 9.2, "every shard's count, every pass").
//
// The per-shard PSGD sensitivity, the step of the convex remedy and (for
// other schedules) the noise are planned from the shard sizes n_s counted
// before the charge. A pass that only checks totals (P n rows, U updates)
// misses a rewrite that keeps n and max_s n_s (delete a row of one shard,
// insert a row with a new key in another). Every shard's partial state
// reaches the coordinator's combine as it left the shard (Citus:
// worker_partial_agg on the worker, coord_combine_agg + the combine on the
// coordinator), carrying the rows it saw, P n_s. The combine folds each such
// state into
//
//   F = (number of non-empty shard states, sum_s H_k(P n_s) mod 2^64),
//   H_k = SipHash-2-4 keyed by the epoch's count key k (a PRF),
//
// and the run compares F with the fingerprint of the planned counts.
// F is a homomorphism from multisets of counts to (N, Z/2^64), so any order
// and grouping of the combines gives the same F, and equal multisets give
// equal F. For a different multiset of the same size, the two sums of a PRF
// under a key the writer does not know collide with probability ~2^-64 (as
// for a random function); a writer that knew k could search for a collision
// (a generalized birthday problem), hence a fresh secret key per epoch,
// derived from a run key drawn from the OS CSPRNG that never leaves the
// coordinator's run object (only the epoch's key travels, in the state).
// Empty shards send no state (a NULL partial state in Citus): they are not
// part of F, nor of the planned fingerprint; the number of shards itself is
// checked against the catalog when the run starts.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/privacy/random_source.h"

namespace dptrain::sgd {

using CountKey = std::array<unsigned char, 16>;

// The run's count key: always from the OS CSPRNG, also in a seeded run (it
// changes no model, only what a writer would have to guess).
privacy::RandomSource::Key run_count_key();
// Epoch e's key: BLAKE2b-128(key = run key, "dptrain-counts:" || e, 8 bytes LE),
// a message no shuffle or split key uses.
CountKey epoch_count_key(const privacy::RandomSource::Key& run_key, std::uint64_t epoch);
// SipHash-2-4(key, rows as 8 bytes LE), read as an unsigned LE integer.
std::uint64_t count_hash(const CountKey& key, std::uint64_t rows);

struct CountFingerprint {
  std::uint64_t states = 0;  // non-empty shard states folded
  std::uint64_t sum = 0;     // sum of count_hash over them, mod 2^64
  void add(const CountFingerprint& o) {
    states += o.states;
    sum += o.sum;  // unsigned: mod 2^64
  }
  bool operator==(const CountFingerprint& o) const { return states == o.states && sum == o.sum; }
  bool operator!=(const CountFingerprint& o) const { return !(*this == o); }
};

// The fingerprint of one shard's state that saw `rows` rows: nothing for an
// empty shard, else (1, H_k(rows)).
CountFingerprint shard_fingerprint(const CountKey& key, std::uint64_t rows);
// The fingerprint of the multiset `counts` (zeros skipped, as empty shards).
CountFingerprint multiset_fingerprint(const CountKey& key, const std::vector<std::uint64_t>& counts);

}  // namespace dptrain::sgd
