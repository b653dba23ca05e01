// The lots of a DP-SGD run: Poisson sampling (Abadi et al. 2016, Section 3.1 and Theorem 1,
// sampling probability q = L/N; the sampling the RDP accountant of Mironov, Talwar & Zhang
// 2019 assumes, its Section 3 and Theorem 4; sampled batches are not Poisson lots). Lot t includes each of the rows
// 1..n independently with probability q. It is drawn as B_t ~ Binomial(n, q) and then a
// uniformly random B_t-subset (Floyd's algorithm): given its size, a Poisson sample is a
// uniform subset of that size, so the two steps give exactly the Poisson distribution
// with O(B_t) work instead of n coin flips.
//
// Lot t reads its own stream RandomSource::from_key(run key, lot_nonce(t)) (batch_noise.h
// lists the streams of a run), so any lot is regenerated from (key, t) alone, in any
// order: the in-memory driver and a set-returning SQL function producing lots t..t+m-1
// for one aggregate query draw exactly the same rows. Rows are numbered 1..n (a dense row
// id of the prepared table). The key is secret: the lots are the mechanism's randomness.
#pragma once

#include <cstdint>
#include <vector>

#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"
#include "core/privacy/uniform_subset.h"

namespace dptrain::dpsgd {

class PoissonLots {
 public:
  // rows >= 0, 0 < q <= 1.
  PoissonLots(const privacy::RandomSource::Key& key, std::int64_t rows, double q);

  // The row numbers of lot t >= 1, ascending (valid until the next call).
  const std::vector<std::int64_t>& lot(std::uint64_t t);

  std::int64_t rows() const { return rows_; }
  double rate() const { return q_; }

 private:
  privacy::RandomSource::Key key_;
  std::int64_t rows_;
  double q_;
  privacy::BinomialSampler size_;
  privacy::UniformSubset subset_;
  std::vector<std::int64_t> lot_;
};

}  // namespace dptrain::dpsgd
