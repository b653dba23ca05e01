#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "loader/dataset.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

double norm(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}

TEST(Format, InferredFromNameAndContent) {
  TempFile csv("1,2,a\n"), libsvm("|comment\n\n+1 3:0.5 7:1\n", ".gz", true), label_only("-1\n1,2\n"),
      sk("3,2,a,b\n1,2,0\n");
  EXPECT_EQ(infer_format(csv.path()), Format::Csv);
  EXPECT_EQ(infer_format(libsvm.path()), Format::Libsvm);
  EXPECT_EQ(infer_format(label_only.path()), Format::Csv);
  EXPECT_EQ(infer_format(sk.path()), Format::Csv);  // csv_table recognizes the scikit-learn header
  EXPECT_EQ(infer_format("/x/train-images-idx3-ubyte.gz"), Format::Idx);
  EXPECT_EQ(parse_format("svmlight"), Format::Libsvm);
  EXPECT_LOAD_ERROR(parse_format("parquet"), "unknown input format \"parquet\"");
}

TEST(Dataset, CsvPipelineScalesOneHotEncodesAndNormalizes) {
  TempFile train("age,color,y\n20,red,yes.\n60,blue,no.\n"), test("age,color,y\n40,red,no\n");
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  o.labels.positive = "yes";
  Dataset d(o);
  EXPECT_EQ(d.format(), Format::Csv);
  ASSERT_EQ(d.dims(), 3u);  // age, color=blue, color=red
  std::vector<double> x(3);
  // Row 0: age 0, red -> (0, 0, 1), already unit norm.
  const LabelValue& y0 = d.row(Part::Train, 0, x.data());
  EXPECT_TRUE(y0.boolean);
  EXPECT_NEAR(x[0], 0, 1e-15);
  EXPECT_NEAR(x[2], 1, 1e-12);
  // Row 1: age 1, blue -> (1, 1, 0) / sqrt 2.
  EXPECT_FALSE(d.row(Part::Train, 1, x.data()).boolean);
  EXPECT_NEAR(x[0], 1 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(x[1], 1 / std::sqrt(2.0), 1e-12);
  EXPECT_LE(norm(x), 1.0);
  // Test row: age 0.5, red -> (0.5, 0, 1) / sqrt(1.25).
  EXPECT_FALSE(d.row(Part::Test, 0, x.data()).boolean);
  EXPECT_NEAR(x[0], 0.5 / std::sqrt(1.25), 1e-12);
  EXPECT_EQ(d.id(Part::Test, 0), 0);
  EXPECT_EQ(d.labels().type(), LabelType::Boolean);
  const auto meta = d.metadata();
  EXPECT_EQ(meta["features"], 3);
  EXPECT_EQ(meta["numeric"]["age"]["bounds"], "training data");
  EXPECT_EQ(meta["categorical"]["color"]["categories"], (std::vector<std::string>{"blue", "red"}));
  EXPECT_EQ(meta["feature_names"], (std::vector<std::string>{"age", "color=blue", "color=red"}));
}

TEST(Dataset, UnknownTestLabelIsAnErrorWithItsLine) {
  TempFile train("1,a\n2,b\n"), test("3,a\n4,c\n");
  LoadOptions o;
  o.file = train.path();
  o.test_file = test.path();
  EXPECT_LOAD_ERROR(Dataset{o}, "unknown label \"c\" at " + test.path() + ":2: no training row has it");
}

TEST(Dataset, NormalizationChoices) {
  TempFile train("3 1:3 2:4\n-1 1:0.3\n");
  LoadOptions o;
  o.file = train.path();
  o.labels.max_classes = 5;
  o.normalize = preprocessing::RowNormalization::None;
  Dataset none(o);
  EXPECT_EQ(none.format(), Format::Libsvm);
  EXPECT_EQ(none.labels().type(), LabelType::Integer);
  std::vector<double> x(2);
  none.row(Part::Train, 0, x.data());
  EXPECT_EQ(x, (std::vector<double>{3, 4}));
  o.normalize = preprocessing::RowNormalization::Clip;
  Dataset clip(o);
  clip.row(Part::Train, 0, x.data());
  EXPECT_NEAR(x[0], 0.6, 1e-12);
  clip.row(Part::Train, 1, x.data());
  EXPECT_EQ(x[0], 0.3);  // norm <= 1: untouched
}

TEST(Dataset, RandomProjectionThenUnitRows) {
  std::string rows;
  for (int i = 0; i < 20; ++i) {
    rows += std::to_string(i % 2 ? 1 : -1);
    for (int k = 1; k <= 40; ++k) rows += " " + std::to_string(k) + ":" + std::to_string((i * k) % 7 + 1);
    rows += "\n";
  }
  TempFile train(rows);
  LoadOptions o;
  o.file = train.path();
  o.project = 5;
  o.projection_seed = 42;
  Dataset d(o);
  EXPECT_EQ(d.input_dims(), 40u);
  EXPECT_EQ(d.dims(), 5u);
  std::vector<double> x(5), again(5);
  for (std::size_t i = 0; i < d.rows(Part::Train); ++i) {
    d.row(Part::Train, i, x.data());
    EXPECT_NEAR(norm(x), 1.0, 1e-12);
    EXPECT_LE(norm(x), 1.0);
  }
  Dataset same_seed(o);
  same_seed.row(Part::Train, 3, again.data());
  d.row(Part::Train, 3, x.data());
  EXPECT_EQ(x, again);
  EXPECT_EQ(d.metadata()["projection"]["seed"], 42);
  o.projection_seed.reset();
  Dataset drawn(o);  // a seed is drawn and reported
  EXPECT_TRUE(drawn.metadata()["projection"]["seed"].is_number_unsigned());
}

// Fuzzing found rows of NaN loaded without a word: a numeric column from
// -1e308 to 1e308 has a range (max - min) of infinity, and min-max scaling
// then gives inf / inf. The row is refused, naming its line.
TEST(Dataset, AColumnWhoseRangeOverflowsIsAnErrorNotNaN) {
  // max - min = inf scaled every value to inf/inf: NaN rows, loaded silently.
  TempFile wide("a,b,y\n1e308,1,x\n-1e308,2,z\n");
  LoadOptions o;
  o.file = wide.path();
  EXPECT_LOAD_ERROR(Dataset{o}, "the range of column \"a\" (from its training values) is too wide");
  o.schema.bounds["a"] = Bounds{-1e308, 1e308};  // declared bounds (a load spec's) overflow the same way
  EXPECT_LOAD_ERROR(Dataset{o}, "the range of column \"a\" (from the given bounds) is too wide");
}

TEST(Dataset, OptionsThatDoNotFitTheFormatAreErrors) {
  TempFile libsvm("+1 1:1\n"), csv("1,a\n2,b\n"), rows("0\n");
  LoadOptions o;
  o.file = libsvm.path();
  o.csv.label = "c1";
  EXPECT_LOAD_ERROR(Dataset{o}, "--label and --columns apply to CSV input only");
  o.csv.label.clear();
  o.schema.bounds["*"] = Bounds{0, 1};
  EXPECT_LOAD_ERROR(Dataset{o}, "apply to CSV input only");
  o = LoadOptions();
  o.file = csv.path();
  o.test_file = csv.path();
  o.test_rows = rows.path();
  EXPECT_LOAD_ERROR(Dataset{o}, "either --test-file or --test-rows");
  o.test_file.reset();
  o.test_rows.reset();
  o.projection_seed = 3;
  EXPECT_LOAD_ERROR(Dataset{o}, "--projection-seed needs --project");
  o = LoadOptions();
  o.file = "/nonexistent/data.csv";
  EXPECT_LOAD_ERROR(Dataset{o}, "cannot open input file \"/nonexistent/data.csv\"");
}

}  // namespace
}  // namespace dptrain::loader
