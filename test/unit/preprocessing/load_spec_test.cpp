#include <gtest/gtest.h>

#include "core/error.h"
#include "core/preprocessing/load_spec.h"

namespace dptrain::preprocessing {
namespace {

using nlohmann::json;

// As dataset.cpp's metadata() writes it for a CSV file.
json csv_spec(const char* age_bounds, const char* sex_list) {
  return {{"format", "csv"},
          {"file", "/data/people.csv"},
          {"classes", {">50K", "<=50K"}},
          {"positive", ">50K"},
          {"numeric", {{"age", {{"min", 17}, {"max", 90}, {"bounds", age_bounds}}}}},
          {"categorical", {{"sex", {{"categories", {"Female", "Male"}}, {"list", sex_list}}}}}};
}

TEST(LoadSpec, PublicOnlyWhenEveryBoundAndListIsTheUsers) {
  EXPECT_FALSE(load_spec_reads_data(csv_spec("user", "user")));
  EXPECT_TRUE(load_spec_reads_data(csv_spec("training data", "user")));
  EXPECT_TRUE(load_spec_reads_data(csv_spec("user", "data (train and test)")));
}

TEST(LoadSpec, AMissingOrUnknownOriginCountsAsData) {
  json spec = csv_spec("user", "user");
  spec["numeric"]["age"].erase("bounds");
  EXPECT_TRUE(load_spec_reads_data(spec));
  spec = csv_spec("user", "user");
  spec["categorical"]["sex"]["list"] = "declared";  // only "user" is public
  EXPECT_TRUE(load_spec_reads_data(spec));
  spec = csv_spec("user", "user");
  spec["numeric"]["age"]["bounds"] = true;
  EXPECT_TRUE(load_spec_reads_data(spec));
}

TEST(LoadSpec, FormatsWithoutColumnsReadNothing) {
  // IDX pixels are scaled by 1/255 and LIBSVM values used as given.
  EXPECT_FALSE(load_spec_reads_data(json{{"format", "idx"}, {"input_features", 784}}));
  EXPECT_FALSE(load_spec_reads_data(json{{"format", "libsvm"}, {"input_features", 8315}}));
}

TEST(LoadSpec, MalformedSpecsAreRefused) {
  EXPECT_THROW(load_spec_reads_data(json::array()), Error);
  EXPECT_THROW(load_spec_reads_data(json{{"numeric", 3}}), Error);
  EXPECT_THROW(load_spec_reads_data(json{{"categorical", {{"sex", "Female|Male"}}}}), Error);
}

TEST(LoadSpec, WithheldKeepsOnlyTheFormatAndTheFlags) {
  const json w = withheld_load_spec(csv_spec("training data", "user"));
  EXPECT_EQ(w, (json{{"withheld", true}, {"from_data", true}, {"format", "csv"}}));
  EXPECT_EQ(withheld_load_spec(csv_spec("user", "user"))["from_data"], false);
  // No label values, bounds, categories or file names survive.
  const std::string text = withheld_load_spec(csv_spec("user", "user")).dump();
  for (const char* secret : {">50K", "Female", "17", "people.csv"}) EXPECT_EQ(text.find(secret), std::string::npos);
}

}  // namespace
}  // namespace dptrain::preprocessing
