#include "core/privacy/log_math.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace dptrain::privacy::log_math {
namespace {

TEST(LogMath, LogErfcMatchesHighPrecisionValues) {
  // ln erfc(x), reference values from 50-digit arithmetic (mpmath); x = 19.5 / 20.5 straddle the
  // switch from Boost's erfc to the continued fraction.
  struct Case { double x, value; };
  for (const Case& c : {Case{-3, 0.69313613525044681}, Case{0, 0.0}, Case{1, -1.8496055099332482},
                        Case{10, -102.87988902484489}, Case{19.5, -383.79409003810050},
                        Case{20.5, -423.84397607879116}, Case{30, -903.97411711064388},
                        Case{100, -10005.177585122664}, Case{1e4, -100000009.78270532}}) {
    EXPECT_NEAR(log_erfc(c.x), c.value, 1e-13 * std::max(1.0, std::abs(c.value))) << "x = " << c.x;
  }
}

TEST(LogMath, LogAddSubExpm1) {
  EXPECT_NEAR(log_add(std::log(2.0), std::log(3.0)), std::log(5.0), 1e-15);
  EXPECT_EQ(log_add(kNegInf, 1.5), 1.5);
  EXPECT_EQ(log_add(1.5, kNegInf), 1.5);
  EXPECT_NEAR(log_add(1000.0, 1000.0), 1000.0 + std::log(2.0), 1e-12);  // no overflow
  EXPECT_NEAR(log_sub(std::log(5.0), std::log(3.0)), std::log(2.0), 1e-15);
  EXPECT_EQ(log_sub(2.0, 2.0), kNegInf);
  EXPECT_EQ(log_sub(2.0, kNegInf), 2.0);
  EXPECT_THROW(log_sub(1.0, 2.0), Error);
  // ln(e^x - 1): small x keeps relative precision (ln(1e-20) = -46.0517), large x does not overflow.
  EXPECT_NEAR(log_expm1(1e-20), -46.051701859880914, 1e-12);
  EXPECT_NEAR(log_expm1(1.0), std::log(std::exp(1.0) - 1), 1e-15);
  EXPECT_NEAR(log_expm1(5000.0), 5000.0, 1e-12);
  EXPECT_NEAR(log1p_exp(-50.0), std::exp(-50.0), 1e-30);
  EXPECT_NEAR(log1p_exp(5000.0), 5000.0, 1e-12);
}

}  // namespace
}  // namespace dptrain::privacy::log_math
