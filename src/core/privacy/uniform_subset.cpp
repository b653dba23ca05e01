#include "core/privacy/uniform_subset.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/interrupt.h"

namespace dptrain::privacy {
namespace {

constexpr std::int64_t kLinearLookupMax = 64;  // below this a scan beats hashing
constexpr std::int64_t kPollEvery = UniformSubset::kPollEvery;

void poll(const InterruptCheck& interrupted) { stop_if_interrupted(interrupted, "the batch sampling"); }

// std::sort's result (the values are distinct), polling after every sorted
// block of kPollEvery values and every merge of two sorted runs.
void sort_polled(std::vector<std::int64_t>& v, const InterruptCheck& interrupted) {
  const auto n = static_cast<std::int64_t>(v.size());
  auto at = [&](std::int64_t i) { return v.begin() + static_cast<std::ptrdiff_t>(std::min(i, n)); };
  for (std::int64_t w = 0; w < n; w += kPollEvery) {
    std::sort(at(w), at(w + kPollEvery));
    poll(interrupted);
  }
  for (std::int64_t run = kPollEvery; run < n; run *= 2)
    for (std::int64_t w = 0; w + run < n; w += 2 * run) {
      std::inplace_merge(at(w), at(w + run), at(w + 2 * run));
      poll(interrupted);
    }
}

}  // namespace

void UniformSubset::draw(RandomSource& rng, std::int64_t rows, std::int64_t size, std::vector<std::int64_t>& out,
                         const InterruptCheck& interrupted) {
  if (!(size >= 0 && size <= rows))
    fail(ErrorKind::Internal, "a uniform subset needs 0 <= size <= rows",
         "size " + std::to_string(size) + ", rows " + std::to_string(rows) + ".");
  out.clear();
  lookup_.clear();
  const bool linear = size <= kLinearLookupMax;
  if (!linear) lookup_.reserve(static_cast<std::size_t>(size) * 2);
  std::int64_t since_poll = 0;
  for (std::int64_t j = rows - size + 1; j <= rows; ++j) {
    if (interrupted && ++since_poll == kPollEvery) {
      since_poll = 0;
      poll(interrupted);
    }
    const std::int64_t r = 1 + static_cast<std::int64_t>(rng.uniform_below(static_cast<std::uint64_t>(j)));
    const bool taken = linear ? std::find(out.begin(), out.end(), r) != out.end() : lookup_.count(r) > 0;
    const std::int64_t pick = taken ? j : r;
    out.push_back(pick);
    if (!linear) lookup_.insert(pick);
  }
  if (interrupted && size > kPollEvery)
    sort_polled(out, interrupted);
  else
    std::sort(out.begin(), out.end());
}

}  // namespace dptrain::privacy
