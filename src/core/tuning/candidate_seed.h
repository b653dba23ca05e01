// The test seed of a tuning search's i-th candidate run (seeds are for tests
// and benchmarks only: a seeded search is refused under a budget).
//
// It used to be seed + 1 + i, so the searches of adjacent seeds shared their
// candidates' noise: search seed 1's second candidate was search seed 2's
// first, and a benchmark's "independent" seeded runs picked identical models
// (measured: bench/compare.sh, P-SGD dp_tune on KDD, seeds 1-3 gave the same
// accuracy to the last digit at three epsilon). Mixing the search seed and the
// candidate's index through SplitMix64's finalizer keeps every candidate
// reproducible and makes the streams of different searches unrelated.
#pragma once

#include <cstdint>

namespace dptrain::tuning {

// SplitMix64's output function (Steele, Lea & Flood 2014): a bijection of
// 64-bit words with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Candidate `index` (0-based, in the order the search starts them) of the
// search seeded with `search_seed`. Never the search seed itself for any
// index (the selection uses the search seed's own stream).
constexpr std::int64_t candidate_seed(std::int64_t search_seed, std::uint64_t index) {
  const std::uint64_t s = static_cast<std::uint64_t>(search_seed);
  const std::uint64_t c = mix64(mix64(s) + 0x9e3779b97f4a7c15ULL * (index + 1));
  return static_cast<std::int64_t>(c == s ? c + 1 : c);
}

}  // namespace dptrain::tuning
