// Malformed aggregate states are rejected, never used: validate_layout (run
// on every call of the transition function) catches everything that would
// make add_row/flush/combine step outside the array; validate adds the
// value checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/sgd/epoch_state.h"

namespace dptrain::epoch_state {
namespace {

std::vector<double> good_state(int dim = 3, int models = 1, bool averaging = false) {
  EpochConfig c;
  c.dim = dim;
  c.models = models;
  c.batch_size = 4;
  c.schedule.kind = ScheduleKind::Constant;
  c.schedule.eta = 0.1;
  c.averaging = averaging;
  return make_state(c, nullptr, 0);
}

void expect_invalid_layout(const std::vector<double>& s) {
  EXPECT_THROW(validate_layout(s.data(), s.size()), Error);
  EXPECT_THROW(validate(s.data(), s.size()), Error);
}

TEST(EpochStateValidation, WellFormedStatesPass) {
  for (bool averaging : {false, true}) {
    const auto s = good_state(3, 4, averaging);
    EXPECT_NO_THROW(validate_layout(s.data(), s.size()));
    EXPECT_NO_THROW(validate(s.data(), s.size()));
  }
}

TEST(EpochStateValidation, LengthMustMatchTheHeader) {
  auto s = good_state();
  expect_invalid_layout(std::vector<double>(s.begin(), s.end() - 1));
  auto longer = s;
  longer.push_back(0.0);
  expect_invalid_layout(longer);
  expect_invalid_layout(std::vector<double>(s.begin(), s.begin() + kHeaderSize - 1));
  EXPECT_THROW(validate_layout(nullptr, 0), Error);
}

TEST(EpochStateValidation, HeaderFieldsThatSizeOrIndexTheArray) {
  const auto base = good_state();
  auto with = [&](int field, double value) {
    auto s = base;
    s[field] = value;
    return s;
  };
  expect_invalid_layout(with(kMagic, 1.0));
  expect_invalid_layout(with(kVersion, 1.0));  // version 1: no shard counts
  expect_invalid_layout(with(kVersion, 3.0));
  // A huge claimed dimension with a short array (the crafted-INITCOND attack).
  expect_invalid_layout(with(kDim, 1e9));
  expect_invalid_layout(with(kDim, 2.5));
  expect_invalid_layout(with(kDim, 0.0));
  expect_invalid_layout(with(kDim, std::numeric_limits<double>::quiet_NaN()));
  expect_invalid_layout(with(kModels, 2.0));  // then the length no longer matches
  expect_invalid_layout(with(kModels, -1.0));
  expect_invalid_layout(with(kAveraging, 1.0));  // averaging needs a third block
  expect_invalid_layout(with(kAveraging, 0.5));
  expect_invalid_layout(with(kBatchSize, 0.0));
  expect_invalid_layout(with(kPending, 4.0));  // pending must stay below b
  expect_invalid_layout(with(kPending, -1.0));
  expect_invalid_layout(with(kRows, std::numeric_limits<double>::infinity()));
  expect_invalid_layout(with(kLoss, 7.0));
  expect_invalid_layout(with(kSchedule, 5.0));
}

TEST(EpochStateValidation, ValuesAreCheckedByTheFullValidationOnly) {
  auto s = good_state();
  s[kHeaderSize + 1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NO_THROW(validate_layout(s.data(), s.size()));  // cannot step outside the array
  EXPECT_THROW(validate(s.data(), s.size()), Error);
  auto t = good_state();
  t[kEta] = -1.0;
  EXPECT_NO_THROW(validate_layout(t.data(), t.size()));
  EXPECT_THROW(validate(t.data(), t.size()), Error);
  auto u = good_state();
  u[kNoiseFirst] = 1.0;  // reserved header fields must be zero
  EXPECT_THROW(validate(u.data(), u.size()), Error);
}

TEST(EpochStateValidation, SameLayoutTellsApartStatesAtTheSameAddress) {
  auto s = good_state(3);
  const LayoutKey key = layout_key(s.data(), s.size());
  EXPECT_TRUE(same_layout(s.data(), s.size(), key));
  // Counters and weights may change between rows; the layout may not.
  s[kRows] = 17;
  s[kHeaderSize] = 0.25;
  EXPECT_TRUE(same_layout(s.data(), s.size(), key));
  // Another array in the same memory: a different dimension, K, averaging
  // flag, loss or schedule, or length, is caught.
  for (int field : {kMagic, kVersion, kDim, kModels, kAveraging, kLoss, kSchedule}) {
    auto t = s;
    t[field] += 1;
    EXPECT_FALSE(same_layout(t.data(), t.size(), key)) << "field " << field;
  }
  EXPECT_FALSE(same_layout(s.data(), s.size() - 1, key));
  EXPECT_FALSE(same_layout(s.data(), kHeaderSize - 1, LayoutKey{kHeaderSize - 1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(EpochStateValidation, CombineRefusesDifferentConfigurations) {
  auto a = good_state(3);
  const auto b = good_state(4);
  EXPECT_THROW(combine(a.data(), a.size(), b.data(), b.size()), Error);
}

}  // namespace
}  // namespace dptrain::epoch_state
