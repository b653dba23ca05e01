#include "core/sgd/batch_sampler.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/privacy/batch_noise.h"

namespace dptrain {
namespace {

constexpr std::int64_t kLinearLookupMax = 64;  // below this a scan beats hashing

}  // namespace

std::int64_t batches_per_epoch(std::int64_t rows, std::int64_t batch_size) {
  return (rows + batch_size - 1) / batch_size;
}

BatchSampler::BatchSampler(const privacy::RandomSource::Key& key, std::uint64_t epoch_start_updates,
                           std::int64_t rows, std::int64_t batch_size)
    : stream_(privacy::RandomSource::from_key(key, privacy::sampling_nonce(epoch_start_updates))),
      rows_(rows),
      batch_size_(batch_size) {
  if (!(batch_size >= 1 && batch_size <= rows))
    fail(ErrorKind::InvalidParameter, "a sampled batch needs 1 <= batch_size <= rows",
         "batch_size " + std::to_string(batch_size) + ", rows " + std::to_string(rows) + ".");
  chosen_.reserve(static_cast<std::size_t>(batch_size));
  if (batch_size > kLinearLookupMax) lookup_.reserve(static_cast<std::size_t>(batch_size) * 2);
}

void BatchSampler::next(std::int64_t* out) {
  // Floyd's algorithm (Bentley & Floyd, "Programming Pearls: A sample of
  // brilliance", CACM 1987): for j = m-b+1..m draw r uniform in [1, j] and
  // take r, or j if r was taken already. Every b-subset has probability
  // 1 / C(m, b); b draws, no O(m) work.
  chosen_.clear();
  lookup_.clear();
  const bool linear = batch_size_ <= kLinearLookupMax;
  for (std::int64_t j = rows_ - batch_size_ + 1; j <= rows_; ++j) {
    const std::int64_t r = 1 + static_cast<std::int64_t>(stream_.uniform_below(static_cast<std::uint64_t>(j)));
    const bool taken = linear ? std::find(chosen_.begin(), chosen_.end(), r) != chosen_.end() : lookup_.count(r) > 0;
    const std::int64_t pick = taken ? j : r;
    chosen_.push_back(pick);
    if (!linear) lookup_.insert(pick);
  }
  std::sort(chosen_.begin(), chosen_.end());
  std::copy(chosen_.begin(), chosen_.end(), out);
}

}  // namespace dptrain
