#include "core/dpsgd/poisson_lots.h"

#include <cmath>

#include "core/error.h"
#include "core/privacy/batch_noise.h"
#include "core/privacy/messages.h"

namespace dptrain::dpsgd {
namespace {

double checked_rate(double q) {
  if (!(q > 0 && q <= 1))
    fail(ErrorKind::InvalidParameter, "the sampling rate q must be in (0, 1]", "q = " + privacy::show(q),
         "q is the expected lot size divided by the number of rows");
  return q;
}

}  // namespace

PoissonLots::PoissonLots(const privacy::RandomSource::Key& key, std::int64_t rows, double q)
    : key_(key), rows_(rows), q_(checked_rate(q)), size_(rows, q) {}

const std::vector<std::int64_t>& PoissonLots::lot(std::uint64_t t) {
  privacy::RandomSource rng = privacy::RandomSource::from_key(key_, privacy::lot_nonce(t));
  const std::int64_t size = size_(rng);
  subset_.draw(rng, rows_, size, lot_);
  return lot_;
}

}  // namespace dptrain::dpsgd
