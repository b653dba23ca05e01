#include "core/preprocessing/random_projection.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"

namespace dptrain::preprocessing {

void RandomProjection::check_shape(std::size_t input_dim, std::size_t output_dim) {
  if (input_dim == 0) fail(ErrorKind::InvalidParameter, "random projection needs at least one input dimension");
  if (output_dim == 0)
    fail(ErrorKind::InvalidParameter, "random projection needs at least one output dimension", {},
         "Give the target dimension k >= 1 (Bolt-on DP projects MNIST to 50).");
  if (input_dim > kMaxEntries / output_dim)
    throw Error(ErrorKind::ProgramLimit, "random projection matrix too large",
                std::to_string(output_dim) + " x " + std::to_string(input_dim) + " entries, more than 2^28 (2 GiB)",
                "Use a smaller target dimension.");
}

RandomProjection::RandomProjection(std::size_t input_dim, std::size_t output_dim, std::uint64_t seed)
    : seed_(seed) {
  check_shape(input_dim, output_dim);
  matrix_.resize(static_cast<Eigen::Index>(output_dim), static_cast<Eigen::Index>(input_dim));
  // The matrix is public and independent of the data (a fixed function of
  // the seed, row-major draw order), so a seeded source is the right one.
  auto rng = privacy::RandomSource::seeded(seed);
  privacy::fill_standard_normal(rng, matrix_.data(), matrix_.size());
  matrix_ *= 1.0 / std::sqrt(static_cast<double>(output_dim));  // N(0, 1/k)
}

void RandomProjection::apply(const double* x, std::size_t n, double* out) const {
  if (n != input_dim())
    fail(ErrorKind::InvalidParameter, "random projection expects " + std::to_string(input_dim()) +
                                          " input features, got " + std::to_string(n));
  Eigen::Map<const Eigen::VectorXd> in(x, static_cast<Eigen::Index>(n));
  Eigen::Map<Eigen::VectorXd> result(out, matrix_.rows());
  result.noalias() = matrix_ * in;
}

std::vector<double> RandomProjection::apply(const std::vector<double>& x) const {
  std::vector<double> out(output_dim());
  apply(x.data(), x.size(), out.data());
  return out;
}

}  // namespace dptrain::preprocessing
