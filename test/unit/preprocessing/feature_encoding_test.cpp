// Features from ordinary columns (issue 16 item 4): every encoded value
// computed by hand from the declared bounds and categories.
#include "core/preprocessing/feature_encoding.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace dptrain::preprocessing {
namespace {

using V = std::vector<std::optional<std::string_view>>;

FeatureEncoding adult_like(RowNormalization n = RowNormalization::UnitL2) {
  EncodedColumn age{"age", ColumnKind::Numeric, 17, 90, {}, false};
  EncodedColumn sex{"sex", ColumnKind::Categorical, 0, 1, {"Female", "Male"}, false};
  EncodedColumn owner{"owner", ColumnKind::Boolean, 0, 1, {}, false};
  return FeatureEncoding({age, sex, owner}, n);
}

TEST(FeatureEncoding, NumericBooleanAndOneHotByHand) {
  const FeatureEncoding e = adult_like();
  ASSERT_EQ(e.dim(), 4);
  EXPECT_EQ(e.feature_names(), (std::vector<std::string>{"age", "sex=Female", "sex=Male", "owner"}));
  double x[4];
  // age 53.5 -> (53.5 - 17) / 73 = 0.5; sex Male -> (0, 1); owner t -> 1.
  // Raw (0.5, 0, 1, 1), norm sqrt(0.25 + 2) = 1.5: l2 gives (1/3, 0, 2/3, 2/3).
  ASSERT_TRUE(e.encode(V{"53.5", "Male", "t"}, x));
  EXPECT_NEAR(x[0], 1.0 / 3, 1e-12);
  EXPECT_EQ(x[1], 0.0);
  EXPECT_NEAR(x[2], 2.0 / 3, 1e-12);
  EXPECT_NEAR(x[3], 2.0 / 3, 1e-12);
}

TEST(FeatureEncoding, BoundsClipAndClipNormalizationKeepsShortRows) {
  const FeatureEncoding e = adult_like(RowNormalization::Clip);
  double x[4];
  // age 200 clips to 90 -> 1; unknown category and NULL text -> zeros; false -> 0.
  // Raw (1, 0, 0, 0) has norm 1: clip leaves it (up to the few ulps below 1
  // that normalize_row aims at, row_normalization.h).
  ASSERT_TRUE(e.encode(V{"200", "Other", "false"}, x));
  EXPECT_NEAR(x[0], 1.0, 1e-14);
  EXPECT_EQ(x[1] + x[2] + x[3], 0.0);
  ASSERT_TRUE(e.encode(V{"-Infinity", std::nullopt, "f"}, x));  // clips to lo -> 0: the zero row stays zero
  for (double v : x) EXPECT_EQ(v, 0.0);
  // Raw (0.5, 1, 0, 0): norm sqrt(1.25) > 1, clip divides by it.
  ASSERT_TRUE(e.encode(V{"53.5", "Female", "f"}, x));
  EXPECT_NEAR(x[0], 0.5 / std::sqrt(1.25), 1e-12);
  EXPECT_NEAR(x[1], 1.0 / std::sqrt(1.25), 1e-12);
}

TEST(FeatureEncoding, EveryEncodedRowHasNormAtMostOne) {
  const FeatureEncoding e = adult_like();
  const char* ages[] = {"-1e300", "17", "40", "90", "1e300"};
  const char* sexes[] = {"Female", "Male", "x"};
  const char* owners[] = {"t", "f"};
  double x[4];
  for (const char* a : ages)
    for (const char* s : sexes)
      for (const char* o : owners) {
        ASSERT_TRUE(e.encode(V{a, s, o}, x));
        EXPECT_LE(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3], 1.0);
      }
}

TEST(FeatureEncoding, NullOrNaNNumbersMakeTheRowUnusable) {
  const FeatureEncoding e = adult_like();
  double x[4];
  EXPECT_FALSE(e.encode(V{std::nullopt, "Male", "t"}, x));
  EXPECT_FALSE(e.encode(V{"NaN", "Male", "t"}, x));
  EXPECT_FALSE(e.encode(V{"30", "Male", std::nullopt}, x));
}

TEST(FeatureEncoding, ValuesOfTheWrongKindAreErrorsThatDoNotEchoTheValue) {
  const FeatureEncoding e = adult_like();
  double x[4];
  try {
    e.encode(V{"secret-123", "Male", "t"}, x);
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::InvalidData);
    EXPECT_EQ(std::string(err.what()).find("secret"), std::string::npos);
  }
  EXPECT_THROW(e.encode(V{"30", "Male", "yes"}, x), Error);
  EXPECT_THROW(e.encode(V{"30", "Male"}, x), Error);  // one value per column
}

TEST(FeatureEncoding, JsonRoundTripKeepsEverythingIncludingTheDataFlag) {
  EncodedColumn c{"colour", ColumnKind::Categorical, 0, 1, {"red", "blue"}, true};
  EncodedColumn h{"height", ColumnKind::Numeric, 1.2, 2.1, {}, false};
  const FeatureEncoding e({c, h}, RowNormalization::Clip);
  const FeatureEncoding back = FeatureEncoding::from_json(e.to_json());
  EXPECT_EQ(back.to_json(), e.to_json());
  EXPECT_TRUE(back.any_categories_from_data());
  EXPECT_EQ(back.dim(), 3);
  EXPECT_EQ(back.normalization(), RowNormalization::Clip);
  EXPECT_EQ(e.to_json()["columns"][1]["bounds"], nlohmann::json::array({1.2, 2.1}));
}

TEST(FeatureEncoding, RefusesUnsoundOrMalformedDeclarations) {
  auto refused = [](std::vector<EncodedColumn> cols, RowNormalization n = RowNormalization::UnitL2) {
    EXPECT_THROW(FeatureEncoding(std::move(cols), n), Error);
  };
  refused({});
  refused({{"a", ColumnKind::Numeric, 1, 1, {}, false}});                        // lo = hi
  refused({{"a", ColumnKind::Numeric, 0, INFINITY, {}, false}});                 // unbounded
  refused({{"a", ColumnKind::Numeric, -1e308, 1e308, {}, false}});               // hi - lo overflows: NaN features
  refused({{"a", ColumnKind::Categorical, 0, 1, {}, false}});                    // no categories
  refused({{"a", ColumnKind::Categorical, 0, 1, {"x", "x"}, false}});            // duplicate category
  refused({{"a", ColumnKind::Boolean, 0, 1, {}, false}, {"a", ColumnKind::Boolean, 0, 1, {}, false}});
  refused({{"a", ColumnKind::Boolean, 0, 1, {}, false}}, RowNormalization::None);  // ||x|| <= 1 not guaranteed
  EXPECT_THROW(FeatureEncoding::from_json(nlohmann::json::parse(R"({"columns": [{"name": "a", "type": "date"}]})")),
               Error);
  EXPECT_THROW(FeatureEncoding::from_json(nlohmann::json::parse(R"({"columns": [{"name": "a", "type": "numeric"}]})")),
               Error);
  EXPECT_THROW(FeatureEncoding::from_json(nlohmann::json::parse(R"([1, 2])")), Error);
}

}  // namespace
}  // namespace dptrain::preprocessing
