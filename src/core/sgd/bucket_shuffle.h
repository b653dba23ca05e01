// A uniformly random order of n rows without a comparison sort: the
// Rao-Sandelius (bucket) shuffle, for the training copy of an unseeded run
// (src/pg/bucket_shuffle.cpp; docs/performance.md, "The shuffle").
//
//   pass 1  every row, in the source's order, goes to one of B buckets
//           drawn i.i.d. uniformly (bucket_of); a bucket keeps its rows in
//           arrival order (a temp file when B > 1);
//   pass 2  bucket 0, 1, ..., B-1 in turn: its rows are permuted uniformly
//           (fisher_yates) and written out.
//
// The result is a uniformly random permutation of the n rows for every B >= 1
// (proof in docs/performance.md): the buckets only bound the memory of pass
// 2 to about one bucket, so B comes from the data's size (bucket_count), a
// public fact of the run (n and d), never from the rows' contents.
//
// Randomness: RandomSource::secure() (the OS CSPRNG keys ChaCha20) in every
// real run; uniform_below rejects the biased tail, so each bucket and each
// swap is exactly uniform given the stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/privacy/random_source.h"

namespace dptrain::sgd {

// At most this many buckets (one temp file and an 8 kB buffer each in pass
// 1): up to kMaxShuffleBuckets x bucket_bytes of data the memory stays
// flat in n; beyond, a bucket holds more than bucket_bytes.
constexpr std::uint64_t kMaxShuffleBuckets = 1024;

// The number of buckets B for `rows` rows of about `row_bytes` each when a
// bucket should fit in `bucket_bytes`: ceil(rows * row_bytes / bucket_bytes),
// at least 1 and at most kMaxShuffleBuckets. Throws Error(InvalidParameter)
// for bucket_bytes = 0.
std::uint64_t bucket_count(std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t bucket_bytes);

// The bucket of the next row: uniform on [0, buckets).
inline std::uint64_t bucket_of(privacy::RandomSource& rng, std::uint64_t buckets) {
  return buckets == 1 ? 0 : rng.uniform_below(buckets);
}

// Permutes items[0..n) uniformly (Fisher-Yates, Durstenfeld's form: for
// i = n-1 down to 1, swap items[i] with items[j], j uniform on [0, i]).
template <class T>
void fisher_yates(privacy::RandomSource& rng, T* items, std::size_t n) {
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.uniform_below(i));
    std::swap(items[i - 1], items[j]);
  }
}

// The whole shuffle in memory, for tests and as the reference of the
// backend's two passes: the order in which rows 0..n-1 come out.
std::vector<std::uint64_t> bucket_shuffle(privacy::RandomSource& rng, std::uint64_t n, std::uint64_t buckets);

}  // namespace dptrain::sgd
