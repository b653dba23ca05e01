// Subnormal epsilon or delta (issue 15, item 6): 1e-320 used to pass the
// argument checks and fail with an internal error after a full epoch, when
// a noise scale divided by it overflowed. validate_arguments refuses every
// subnormal value before anything is read; the smallest normal one passes.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "core/error.h"
#include "core/training/config.h"

namespace dptrain {
namespace {

TrainingConfig with(std::optional<double> epsilon, std::optional<double> delta) {
  TrainingConfig c;
  c.epsilon = epsilon;
  c.delta = delta;
  return c;
}

void expect_invalid(const TrainingConfig& c, const std::string& message) {
  try {
    validate_arguments(c);
    ADD_FAILURE() << "accepted epsilon " << c.epsilon.value_or(-1) << ", delta " << c.delta.value_or(-1);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(SubnormalPrivacyArguments, AreRefusedBeforeAnythingIsRead) {
  const double subnormals[] = {1e-320, 4.9e-324, DBL_MIN / 2, std::nextafter(DBL_MIN, 0.0)};
  for (const double v : subnormals) {
    ASSERT_EQ(std::fpclassify(v), FP_SUBNORMAL) << v;
    expect_invalid(with(v, std::nullopt), "epsilon must be a positive finite number");
    expect_invalid(with(1.0, v), "delta must be in [0, 1)");
  }
}

// A subnormal lambda made bolton's default radius 1/lambda infinite
// ("the Lipschitz constant must be positive and finite, got inf").
TEST(SubnormalPrivacyArguments, LambdaIsZeroOrNormal) {
  TrainingConfig c = with(1.0, std::nullopt);
  c.lambda = 1e-320;
  expect_invalid(c, "lambda must be 0 or at least 2.2e-308");
  c.lambda = DBL_MIN;
  EXPECT_NO_THROW(validate_arguments(c));
  c.lambda = 0;
  EXPECT_NO_THROW(validate_arguments(c));
}

TEST(SubnormalPrivacyArguments, TheSmallestNormalValuesAndZeroDeltaPass) {
  EXPECT_NO_THROW(validate_arguments(with(DBL_MIN, DBL_MIN)));
  EXPECT_NO_THROW(validate_arguments(with(1.0, 0.0)));
  EXPECT_NO_THROW(validate_arguments(with(1.0, std::nullopt)));
  expect_invalid(with(0.0, std::nullopt), "epsilon must be a positive finite number");
  expect_invalid(with(-DBL_MIN, std::nullopt), "epsilon must be a positive finite number");
  expect_invalid(with(1.0, -0.0 - DBL_MIN), "delta must be in [0, 1)");
}

}  // namespace
}  // namespace dptrain
