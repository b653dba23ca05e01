// Scoring a raw file with a load spec (loader/load_spec.h) gives exactly the
// rows `dptrain load` wrote for the same file as its test table.
#include <gtest/gtest.h>

#include "core/error.h"
#include "loader/load_spec.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

// Every feature of every row of part p, and the labels, of a Dataset.
struct Rows {
  std::vector<std::vector<double>> x;
  std::vector<std::string> y;
};
Rows rows(Dataset& d, Part p) {
  Rows r;
  std::vector<double> x(d.dims());
  for (std::size_t i = 0; i < d.rows(p); ++i) {
    const LabelValue& y = d.row(p, i, x.data());
    r.x.push_back(x);
    r.y.push_back(d.labels().type() == LabelType::Boolean   ? (y.boolean ? "t" : "f")
                  : d.labels().type() == LabelType::Integer ? std::to_string(y.integer)
                                                             : y.text);
  }
  return r;
}

// UCI style: no header, ", " separated, '?' missing, a comment line, labels
// with a trailing '.' in the test file. Bounds of age from the training rows,
// categories of color from train and test rows.
const char* kTrain = "20, red, 3, >50K\n60, blue, ?, <=50K\n35, ?, 7, >50K\n50, green, 1, <=50K\n";
const char* kTest = "|1x3 Cross validator\n70, red, 2, >50K.\n10, violet, 3, <=50K.\n40, blue, ?, <=50K.\n";

// How `dptrain load` reads those two files.
LoadOptions uci_options(const TempFile& train, const TempFile& test) {
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  o.csv.header = false;
  o.csv.drop_missing = true;
  o.labels.positive = ">50K";
  return o;
}

TEST(LoadSpec, ScoringTheTestFileGivesTheTestTableBitForBit) {
  TempFile train(kTrain), test(kTest);
  LoadOptions o = uci_options(train, test);
  Dataset loaded(o);
  const nlohmann::json spec = loaded.metadata();
  EXPECT_TRUE(spec.at("from_data").get<bool>());  // age bounds and the color list come from the data
  const Rows expected = rows(loaded, Part::Test);
  ASSERT_EQ(expected.x.size(), 2u);  // the row with '?' is dropped

  Dataset scored = scoring_dataset(spec, test.path(), "");
  const Rows got = rows(scored, Part::Train);
  EXPECT_EQ(got.x, expected.x);  // exact doubles
  EXPECT_EQ(got.y, expected.y);
  EXPECT_EQ(scored.id(Part::Train, 1), loaded.id(Part::Test, 1));
  // 70 is above the training maximum 60: clipped to 1 as in the load.
  EXPECT_EQ(scored.dims(), loaded.dims());
}

TEST(LoadSpec, ProjectionAndPublicBoundsAreRepeated) {
  TempFile train("age,color,y\n20,red,a\n60,blue,b\n30,red,c\n"), test("age,color,y\n90,blue,b\n25,red,a\n");
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  o.schema.bounds["age"] = Bounds{0, 100};
  o.schema.categories["color"] = {"blue", "red"};
  o.project = 2;
  o.projection_seed = 11;
  Dataset loaded(o);
  const nlohmann::json spec = loaded.metadata();
  EXPECT_FALSE(spec.at("from_data").get<bool>());
  Dataset scored = scoring_dataset(spec, test.path(), "");
  const Rows got = rows(scored, Part::Train), expected = rows(loaded, Part::Test);
  EXPECT_EQ(got.x, expected.x);
  EXPECT_EQ(got.y, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(got.y, expected.y);
}

TEST(LoadSpec, OneVsRestKeepsItsNegativeLabelsToItself) {
  // normal vs three attacks: y is boolean; the registered spec names only the
  // positive label, and scoring still maps every other label to false
  // (also one no training row has, as for a --test-file).
  TempFile train("1,normal\n2,smurf\n3,neptune\n4,normal\n5,back\n"), test("6,normal\n7,teardrop\n8,smurf\n");
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  o.labels.positive = "normal";
  o.schema.bounds["*"] = Bounds{0, 10};
  Dataset loaded(o);
  const nlohmann::json spec = registered_spec(loaded.metadata());
  EXPECT_EQ(spec["classes"], nlohmann::json::array({"normal"}));
  EXPECT_TRUE(spec["one_vs_rest"].get<bool>());
  for (const char* attack : {"smurf", "neptune", "back"}) EXPECT_EQ(spec.dump().find(attack), std::string::npos);
  Dataset scored = scoring_dataset(spec, test.path(), "");
  const Rows got = rows(scored, Part::Train), expected = rows(loaded, Part::Test);
  EXPECT_EQ(got.y, (std::vector<std::string>{"t", "f", "f"}));
  EXPECT_EQ(got.y, expected.y);
  EXPECT_EQ(got.x, expected.x);
  // Two training labels: the negative one is kept (an unknown label is an error).
  TempFile two("1,yes\n2,no\n");
  LoadOptions two_labels;
  two_labels.file = two.path();
  two_labels.labels.positive = "yes";
  Dataset binary(two_labels);
  EXPECT_FALSE(registered_spec(binary.metadata()).contains("one_vs_rest"));
}

TEST(LoadSpec, LibsvmKeepsTheTrainingWidth) {
  // The test file's largest index (4) is below the training width (6): the
  // scored rows still have 6 features, as in the test table; an index
  // beyond it is refused.
  TempFile train("+1 1:0.5 6:1\n-1 2:0.25\n"), test("-1 4:2\n+1 1:1 2:1\n"), wider("+1 7:1\n");
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  o.format = Format::Libsvm;
  o.normalize = preprocessing::RowNormalization::Clip;
  Dataset loaded(o);
  const nlohmann::json spec = loaded.metadata();
  Dataset scored = scoring_dataset(spec, test.path(), "");
  ASSERT_EQ(scored.dims(), 6u);
  const Rows got = rows(scored, Part::Train), expected = rows(loaded, Part::Test);
  EXPECT_EQ(got.x, expected.x);
  EXPECT_EQ(got.y, (std::vector<std::string>{"f", "t"}));  // -1/+1 labels: boolean, as loaded
  EXPECT_EQ(got.y, expected.y);
  EXPECT_LOAD_ERROR(scoring_dataset(spec, wider.path(), ""), "exceeds --dims 6");
}

// Fuzzing found a spec of width -1 (read as 2^64 - 1) or 10^15 accepted: every
// scored row then allocated that many doubles (std::length_error, or the OOM
// killer). The spec is refused before the file is read.
TEST(LoadSpec, AnImpossibleWidthIsRefused) {
  TempFile train("+1 1:0.5 6:1\n-1 2:0.25\n");
  LoadOptions o;
  o.file = train.path();
  o.format = Format::Libsvm;
  nlohmann::json spec = Dataset(o).metadata();
  for (const nlohmann::json& width : {nlohmann::json(-1), nlohmann::json(0), nlohmann::json(1000000000000000ull),
                                     nlohmann::json(2.5), nlohmann::json("6")}) {
    spec["input_features"] = width;
    EXPECT_LOAD_ERROR(scoring_dataset(spec, train.path(), ""), "has no valid \"input_features\"");
  }
}

TEST(LoadSpec, ScikitLearnFilesKeepTheirClassNames) {
  // "n_samples,n_features,class names...": labels are class indices, turned into the names.
  TempFile train("3,2,setosa,virginica\n1,2,0\n3,4,1\n5,6,0\n"), test("2,2,setosa,virginica\n2,3,1\n4,1,0\n");
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  o.schema.bounds["*"] = Bounds{0, 8};
  Dataset loaded(o);
  const nlohmann::json spec = loaded.metadata();
  ASSERT_EQ(spec.at("format"), "sklearn");
  Dataset scored = scoring_dataset(spec, test.path(), "");
  const Rows got = rows(scored, Part::Train), expected = rows(loaded, Part::Test);
  EXPECT_EQ(got.x, expected.x);
  EXPECT_EQ(got.y, (std::vector<std::string>{"virginica", "setosa"}));
  EXPECT_EQ(got.y, expected.y);
}

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}
// n images of w pixels (pixel k of image i: i * 10 + k + shift), and their labels.
std::string idx_images(std::uint32_t n, std::uint32_t w, int shift) {
  std::string s = be32(0x00000803) + be32(n) + be32(1) + be32(w);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t k = 0; k < w; ++k) s.push_back(static_cast<char>(i * 10 + k + shift));
  return s;
}
std::string idx_labels(const std::vector<int>& v) {
  std::string s = be32(0x00000801) + be32(static_cast<std::uint32_t>(v.size()));
  for (int x : v) s.push_back(static_cast<char>(x));
  return s;
}

TEST(LoadSpec, IdxImagesWithAProjection) {
  TempFile train(idx_images(4, 6, 0), ".idx"), train_labels(idx_labels({3, 1, 3, 7}), ".idx"),
      test(idx_images(2, 6, 5), ".idx"), test_labels(idx_labels({7, 1}), ".idx"),
      narrow(idx_images(2, 5, 0), ".idx");
  LoadOptions o;
  o.file = train.path();
  o.labels_file = train_labels.path();
  o.test_file = test.path();
  o.test_labels_file = test_labels.path();
  o.project = 3;
  o.projection_seed = 5;
  Dataset loaded(o);
  const nlohmann::json spec = loaded.metadata();
  Dataset scored = scoring_dataset(spec, test.path(), test_labels.path());
  const Rows got = rows(scored, Part::Train), expected = rows(loaded, Part::Test);
  EXPECT_EQ(got.x, expected.x);  // the same seeded matrix
  EXPECT_EQ(got.y, (std::vector<std::string>{"7", "1"}));
  EXPECT_EQ(got.y, expected.y);
  // Images of another size: refused.
  EXPECT_LOAD_ERROR(scoring_dataset(spec, narrow.path(), test_labels.path()), "gives 5 features");
}

TEST(LoadSpec, AFileOfOtherColumnsOrLabelsIsRefused) {
  TempFile train("age,color,y\n20,red,a\n60,blue,b\n"), renamed("age,colour,y\n20,red,a\n"),
      wider("age,color,size,y\n20,red,1,a\n"), unknown("age,color,y\n20,red,z\n"),
      text_age("age,color,y\nold,red,a\n");
  LoadOptions o;
  o.file = train.path();
  Dataset loaded(o);
  const nlohmann::json spec = loaded.metadata();
  EXPECT_LOAD_ERROR(scoring_dataset(spec, renamed.path(), ""), "match the model's load spec");
  EXPECT_LOAD_ERROR(scoring_dataset(spec, wider.path(), ""), "match the model's load spec");
  EXPECT_LOAD_ERROR(scoring_dataset(spec, unknown.path(), ""), "unknown label \"z\"");
  EXPECT_LOAD_ERROR(scoring_dataset(spec, text_age.path(), ""), "bad number \"old\"");
}

// `--header --columns`: the file's header is replaced by the user's names.
// Scoring renames the same way, and checks the file's own header line.
TEST(LoadSpec, AHeaderRenamedByColumnsIsRenamedAgainWhenScored) {
  TempFile train("Age,Color,Y\n20,red,a\n60,blue,b\n35,red,a\n"), test("Age,Color,Y\n70,blue,b\n30,red,a\n"),
      other("Age,Colour,Y\n70,blue,b\n");
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  o.csv.header = true;
  o.csv.column_names = {"age", "color", "y"};
  o.csv.label = "y";
  Dataset loaded(o);
  const nlohmann::json spec = loaded.metadata();
  EXPECT_EQ(spec.at("columns"), nlohmann::json({"age", "color", "y"}));
  EXPECT_EQ(spec.at("file_header"), nlohmann::json({"Age", "Color", "Y"}));
  const Rows expected = rows(loaded, Part::Test);
  ASSERT_EQ(expected.x.size(), 2u);

  Dataset scored = scoring_dataset(spec, test.path(), "");
  const Rows got = rows(scored, Part::Train);
  EXPECT_EQ(got.x, expected.x);
  EXPECT_EQ(got.y, expected.y);
  EXPECT_LOAD_ERROR(scoring_dataset(spec, other.path(), ""), "match the model's load spec");

  // Without a rename the spec keeps no second copy of the names.
  LoadOptions plain = o;
  plain.csv.column_names.clear();
  plain.csv.label = "Y";
  EXPECT_FALSE(Dataset(plain).metadata().contains("file_header"));
}

TEST(LoadSpec, IncompleteOrWithheldSpecsAreRefused) {
  TempFile train("age,color,y\n20,red,a\n60,blue,b\n");
  LoadOptions o;
  o.file = train.path();
  Dataset loaded(o);
  nlohmann::json spec = loaded.metadata();
  spec.erase("csv");  // a table loaded before the reading options were recorded
  EXPECT_LOAD_ERROR(scoring_dataset(spec, train.path(), ""), "has no \"csv\"");
  EXPECT_LOAD_ERROR(scoring_dataset(nlohmann::json{{"withheld", true}, {"format", "csv"}}, train.path(), ""),
                    "withheld");
  // a model of a view of a loaded table: the spec maps the table's columns, not the view's
  EXPECT_LOAD_ERROR(
      scoring_dataset(nlohmann::json{{"withheld", true}, {"from_data", true}, {"through_view", true}}, train.path(), ""),
      "view of a loaded table");
  // Fuzzing: entries read after the file (the column names) escaped as raw
  // nlohmann::json exceptions ("[json.exception.type_error.302] ...").
  nlohmann::json bad_columns = loaded.metadata();
  bad_columns["columns"] = {1, 2, 3};
  EXPECT_LOAD_ERROR(scoring_dataset(bad_columns, train.path(), ""), "has no valid entry");
  bad_columns.erase("columns");
  EXPECT_LOAD_ERROR(scoring_dataset(bad_columns, train.path(), ""), "has no valid entry");
}

TEST(LoadSpec, ThePublicCommentKeepsNoFactOfTheRows) {
  TempFile train(kTrain), test(kTest);
  LoadOptions o = uci_options(train, test);
  o.schema.bounds["c3"] = Bounds{0, 10};  // declared: public
  Dataset loaded(o);
  const nlohmann::json meta = loaded.metadata();
  const nlohmann::json c = public_comment(meta);
  // Origins stay; values read from the data, label values and counts go.
  EXPECT_EQ(c["numeric"]["c1"], (nlohmann::json{{"bounds", "training data"}}));
  EXPECT_EQ(c["numeric"]["c3"], (nlohmann::json{{"min", 0.0}, {"max", 10.0}, {"bounds", "user"}}));
  EXPECT_EQ(c["categorical"]["c2"], (nlohmann::json{{"list", "data (train and test)"}}));
  for (const char* gone : {"classes", "feature_names", "dropped_rows", "file", "test_file"}) EXPECT_FALSE(c.contains(gone)) << gone;
  EXPECT_EQ(c["positive"], ">50K");  // the user's choice
  EXPECT_TRUE(c["from_data"].get<bool>());
  const std::string text = c.dump();
  for (const char* secret : {"violet", "green", "<=50K"}) EXPECT_EQ(text.find(secret), std::string::npos) << secret;
  EXPECT_EQ(c["numeric"].dump().find("50"), std::string::npos);  // the training maximum of c1
  // The registered spec keeps what scoring needs, without the row counts.
  const nlohmann::json r = registered_spec(meta);
  EXPECT_FALSE(r.contains("dropped_rows"));
  EXPECT_FALSE(r["numeric"]["c1"].contains("clipped_test"));
  EXPECT_EQ(r["numeric"]["c1"]["max"], 50.0);  // 60 and 35 are in dropped rows
  EXPECT_EQ(r["classes"], meta["classes"]);
}

}  // namespace
}  // namespace dptrain::loader
