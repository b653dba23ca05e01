#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/preprocessing/row_normalization.h"

namespace dptrain::preprocessing {
namespace {

double norm(const std::vector<double>& x) { return std::sqrt(std::inner_product(x.begin(), x.end(), x.begin(), 0.0)); }

TEST(RowNormalization, UnitL2DividesByTheRowsOwnNorm) {
  std::vector<double> x{3, 4};
  EXPECT_EQ(normalize_row(x.data(), 2, RowNormalization::UnitL2), 5.0);
  EXPECT_NEAR(x[0], 0.6, 1e-14);
  EXPECT_NEAR(x[1], 0.8, 1e-14);
  std::vector<double> small{0.03, 0.04};
  normalize_row(small.data(), 2, RowNormalization::UnitL2);  // scaled up too: unit norm
  EXPECT_NEAR(small[0], 0.6, 1e-14);
  std::vector<double> zero{0, 0, 0};
  normalize_row(zero.data(), 3, RowNormalization::UnitL2);
  EXPECT_EQ(zero, (std::vector<double>{0, 0, 0}));
}

TEST(RowNormalization, ClipOnlyShrinksLongRows) {
  std::vector<double> x{3, 4}, y{0.3, 0.4};
  normalize_row(x.data(), 2, RowNormalization::Clip);
  normalize_row(y.data(), 2, RowNormalization::Clip);
  EXPECT_NEAR(norm(x), 1.0, 1e-14);
  EXPECT_EQ(y, (std::vector<double>{0.3, 0.4}));
  std::vector<double> z{3, 4};
  normalize_row(z.data(), 2, RowNormalization::None);
  EXPECT_EQ(z, (std::vector<double>{3, 4}));
}

// Rounding must never leave a row above norm 1, whatever order a later
// computation sums the squares in.
TEST(RowNormalization, NormsNeverExceedOneAfterRounding) {
  for (std::size_t d : {2u, 17u, 784u, 8315u}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<double> x(d);
      for (std::size_t i = 0; i < d; ++i) x[i] = std::fmod(0.7548776662 * static_cast<double>(i * 31 + trial * 977), 1.0) + 1e-3;
      normalize_row(x.data(), d, RowNormalization::UnitL2);
      double forward = 0, backward = 0;
      for (std::size_t i = 0; i < d; ++i) forward += x[i] * x[i];
      for (std::size_t i = d; i-- > 0;) backward += x[i] * x[i];
      EXPECT_LE(std::sqrt(forward), 1.0) << d;
      EXPECT_LE(std::sqrt(backward), 1.0) << d;
      EXPECT_NEAR(std::sqrt(forward), 1.0, 1e-11) << d;
    }
  }
}

TEST(RowNormalization, Names) {
  EXPECT_EQ(parse_row_normalization("l2"), RowNormalization::UnitL2);
  EXPECT_EQ(parse_row_normalization("clip"), RowNormalization::Clip);
  EXPECT_EQ(parse_row_normalization("none"), RowNormalization::None);
  EXPECT_STREQ(row_normalization_name(RowNormalization::Clip), "clip");
  EXPECT_THROW(parse_row_normalization("max"), Error);
}

}  // namespace
}  // namespace dptrain::preprocessing
