#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/preprocessing/random_projection.h"

namespace dptrain::preprocessing {
namespace {

std::vector<double> unit_vector(std::size_t d, std::uint64_t salt) {
  std::vector<double> x(d);
  for (std::size_t i = 0; i < d; ++i) x[i] = std::sin(0.37 * static_cast<double>(i + 1) * static_cast<double>(salt + 1));
  const double n = std::sqrt(std::inner_product(x.begin(), x.end(), x.begin(), 0.0));
  for (double& v : x) v /= n;
  return x;
}

double squared_norm(const std::vector<double>& x) { return std::inner_product(x.begin(), x.end(), x.begin(), 0.0); }

TEST(RandomProjection, ShapeAndErrors) {
  const RandomProjection p(784, 50, 1);
  EXPECT_EQ(p.input_dim(), 784u);
  EXPECT_EQ(p.output_dim(), 50u);
  EXPECT_EQ(p.matrix().rows(), 50);
  EXPECT_EQ(p.matrix().cols(), 784);
  EXPECT_EQ(p.apply(std::vector<double>(784, 0.0)), std::vector<double>(50, 0.0));  // linear: 0 -> 0
  EXPECT_THROW(p.apply(std::vector<double>(783, 1.0)), Error);
  try {
    p.apply(std::vector<double>(10, 1.0));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_STREQ(e.what(), "random projection expects 784 input features, got 10");
  }
  EXPECT_THROW(RandomProjection(0, 5, 1), Error);
  EXPECT_THROW(RandomProjection(5, 0, 1), Error);
  try {
    RandomProjection(std::size_t{1} << 20, std::size_t{1} << 10, 1);
    FAIL() << "expected ProgramLimit";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ProgramLimit);
  }
}

TEST(RandomProjection, DeterministicPerSeedAndDifferentAcrossSeeds) {
  const RandomProjection a(100, 20, 7), b(100, 20, 7), c(100, 20, 8);
  EXPECT_TRUE(a.matrix() == b.matrix());
  EXPECT_FALSE(a.matrix() == c.matrix());
  EXPECT_EQ(a.seed(), 7u);
  const auto x = unit_vector(100, 3);
  EXPECT_EQ(a.apply(x), b.apply(x));
}

// Entries must be N(0, 1/k): check mean, variance and fourth moment
// (3/k^2 for a Gaussian) over 200 x 500 = 100,000 entries. Standard errors:
// mean sqrt(1/k / N) = 1.4e-4 (k = 200); variance sqrt(2/N)/k = 2.2e-5
// relative 0.0045; the thresholds are ~5 standard errors.
TEST(RandomProjection, EntriesAreGaussianWithVarianceOneOverK) {
  const std::size_t k = 200, d = 500;
  const RandomProjection p(d, k, 2024);
  const auto& m = p.matrix();
  const double n = static_cast<double>(m.size());
  const double mean = m.sum() / n;
  const double var = (m.array() - mean).square().sum() / n;
  const double fourth = (m.array() - mean).pow(4).sum() / n;
  EXPECT_NEAR(mean, 0.0, 5 * std::sqrt(1.0 / k / n));
  EXPECT_NEAR(var * k, 1.0, 0.025);
  EXPECT_NEAR(fourth * k * k, 3.0, 0.15);  // kurtosis of a Gaussian; sd of the estimate ~ sqrt(96/N) = 0.03
}

// E ||Px||^2 = ||x||^2: ||Px||^2 k / ||x||^2 is chi-square with k degrees of
// freedom, so ||Px||^2 has mean 1 and sd sqrt(2/k) = 0.2 for k = 50. The
// mean over 400 independent matrices has sd 0.01; we allow 0.05.
TEST(RandomProjection, PreservesSquaredNormInExpectation) {
  const std::size_t d = 784, k = 50;
  const auto x = unit_vector(d, 11);
  double sum = 0, sum_sq = 0;
  const int runs = 400;
  for (int s = 0; s < runs; ++s) {
    const double q = squared_norm(RandomProjection(d, k, 1000 + s).apply(x));
    sum += q;
    sum_sq += q * q;
  }
  const double mean = sum / runs;
  const double var = sum_sq / runs - mean * mean;
  EXPECT_NEAR(mean, 1.0, 0.05);
  EXPECT_NEAR(var, 2.0 / k, 0.4 * 2.0 / k);  // chi-square variance 2k / k^2
}

// Johnson-Lindenstrauss in one draw: with k = 2000 every unit vector keeps
// its squared norm within 6 sd = 6 sqrt(2/k) = 0.19.
TEST(RandomProjection, OneLargeProjectionNearlyPreservesNorms) {
  const RandomProjection p(300, 2000, 5);
  for (std::uint64_t salt = 0; salt < 10; ++salt)
    EXPECT_NEAR(squared_norm(p.apply(unit_vector(300, salt))), 1.0, 0.19) << "vector " << salt;
}

}  // namespace
}  // namespace dptrain::preprocessing
