// Data-independent Gaussian random projection R^d -> R^k (issue 3 item 5).
//
// The matrix P (k x d) has independent entries N(0, 1/k), so that
// E ||P x||^2 = ||x||^2 for every x (Johnson-Lindenstrauss). It is a function
// of (d, k, seed) only and never of the data: projecting every row with the
// same public P is a fixed per-row map, so neighbouring datasets stay
// neighbours and the differential-privacy guarantee of whatever trains on the
// projected rows is unchanged. The seed may therefore be public (it is
// recorded with the loaded table); it is NOT a privacy secret, unlike the
// noise seeds of the training algorithms. After projecting, the caller
// re-normalizes each row (row_normalization.h), again a per-row map.
//
// Bolt-on DP (Wu et al. 2017, Section 5) projects MNIST to k = 50 this way.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dptrain::preprocessing {

class RandomProjection {
 public:
  // Draws the k x d matrix from RandomSource::seeded(seed), row-major, with
  // fill_standard_normal (the ziggurat of samplers.h; versions before the
  // samplers were merged used the polar method, so a seed recorded by them
  // gives another matrix now; tables keep the rows they were loaded with). Throws
  // dptrain::Error(InvalidParameter) unless d >= 1 and 1 <= k, and
  // ProgramLimit beyond kMaxEntries entries (check_shape).
  RandomProjection(std::size_t input_dim, std::size_t output_dim, std::uint64_t seed);

  // The largest matrix, k x d <= 2^28 entries: 2 GiB of doubles.
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 28;
  // Throws as the constructor does for these dimensions, allocating nothing:
  // callers refuse a projection before they read or allocate anything else.
  static void check_shape(std::size_t input_dim, std::size_t output_dim);

  std::size_t input_dim() const { return static_cast<std::size_t>(matrix_.cols()); }
  std::size_t output_dim() const { return static_cast<std::size_t>(matrix_.rows()); }
  std::uint64_t seed() const { return seed_; }
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& matrix() const { return matrix_; }

  // out[0..k) = P x[0..n); throws InvalidParameter if n != d. `out` must not alias `x`.
  void apply(const double* x, std::size_t n, double* out) const;
  std::vector<double> apply(const std::vector<double>& x) const;

 private:
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> matrix_;
  std::uint64_t seed_;
};

}  // namespace dptrain::preprocessing
