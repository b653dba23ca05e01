// A uniformly random subset of fixed size: Floyd's algorithm (Bentley & Floyd,
// "Programming Pearls: A sample of brilliance", CACM 1987). For j = m-b+1..m draw r
// uniform in [1, j] and take r, or j if r was taken already: every b-subset of {1..m} has
// probability 1 / C(m, b), with b draws and no O(m) work. Used for BST14's fixed-size
// batches and, after a Binomial size, for DP-SGD's Poisson lots.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_set>
#include <vector>

#include "core/interrupt.h"
#include "core/privacy/random_source.h"

namespace dptrain::privacy {

class UniformSubset {
 public:
  // `size` distinct numbers in [1, rows], ascending, into out (resized). 0 <= size <= rows.
  // `interrupted` (if set) is polled after every kPollEvery draws and, for a
  // subset of more than kPollEvery, between the blocks and merges of its sort;
  // true = stop with Error(SQLSTATE 57014). Polling takes no randomness: same output.
  void draw(RandomSource& rng, std::int64_t rows, std::int64_t size, std::vector<std::int64_t>& out,
            const InterruptCheck& interrupted = {});

  static constexpr std::int64_t kPollEvery = 1 << 16;

 private:
  std::unordered_set<std::int64_t> lookup_;  // membership for large subsets
};

}  // namespace dptrain::privacy
