#include "core/sgd/batch_sampler.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/privacy/batch_noise.h"

namespace dptrain {

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
}

void BatchSampler::next(std::int64_t* out) {
  // Every b-subset of {1..m} with probability 1 / C(m, b) (uniform_subset.h).
  subset_.draw(stream_, rows_, batch_size_, chosen_, interrupted_);
  std::copy(chosen_.begin(), chosen_.end(), out);
}

}  // namespace dptrain
