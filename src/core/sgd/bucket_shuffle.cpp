#include "core/sgd/bucket_shuffle.h"

#include "core/error.h"

namespace dptrain::sgd {

std::uint64_t bucket_count(std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t bucket_bytes) {
  if (bucket_bytes == 0) fail(ErrorKind::InvalidParameter, "the bucket size of the shuffle must be positive");
  // rows * row_bytes in long double: no overflow for any table size
  const long double total = static_cast<long double>(rows) * static_cast<long double>(row_bytes);
  const long double b = total / static_cast<long double>(bucket_bytes);
  if (b >= static_cast<long double>(kMaxShuffleBuckets)) return kMaxShuffleBuckets;
  const std::uint64_t whole = static_cast<std::uint64_t>(b);
  const std::uint64_t buckets = static_cast<long double>(whole) < b ? whole + 1 : whole;
  return buckets < 1 ? 1 : buckets;
}

std::vector<std::uint64_t> bucket_shuffle(privacy::RandomSource& rng, std::uint64_t n, std::uint64_t buckets) {
  if (buckets == 0) fail(ErrorKind::InvalidParameter, "the shuffle needs at least one bucket");
  std::vector<std::vector<std::uint64_t>> bucket(buckets);
  for (std::uint64_t row = 0; row < n; ++row) bucket[bucket_of(rng, buckets)].push_back(row);
  std::vector<std::uint64_t> order;
  order.reserve(n);
  for (auto& b : bucket) {
    fisher_yates(rng, b.data(), b.size());
    order.insert(order.end(), b.begin(), b.end());
  }
  return order;
}

}  // namespace dptrain::sgd
