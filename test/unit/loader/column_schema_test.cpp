#include <gtest/gtest.h>

#include "core/error.h"
#include "loader/column_schema.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

std::vector<double> encode(const CsvTable& t, const ColumnSchema& s, Part p, std::size_t i) {
  std::vector<double> x(s.dims());
  s.encode(t.part(p).codes.data() + i * t.width(), x.data());
  return x;
}

struct Loaded {
  Loaded(const std::string& train, const std::string& test, const SchemaOptions& o = SchemaOptions(),
         const CsvOptions& csv = CsvOptions())
      : train_file(train), test_file(test),
        table(read_csv(train_file.path(), test.empty() ? std::nullopt : std::optional(test_file.path()), RowSplitter(),
                       csv)),
        schema(table, o) {}
  TempFile train_file, test_file;
  CsvTable table;
  ColumnSchema schema;
};

TEST(ColumnSchema, MinMaxFromTrainingRowsAndClippedTestValues) {
  Loaded l("age,y\n20,a\n30,b\n60,a\n", "age,y\n10,a\n40,b\n90,a\n");
  ASSERT_EQ(l.schema.dims(), 1u);
  const ColumnEncoding& age = l.schema.columns()[0];
  EXPECT_TRUE(age.numeric);
  EXPECT_EQ(age.origin, BoundsOrigin::Data);
  EXPECT_EQ(age.bounds.lo, 20);
  EXPECT_EQ(age.bounds.hi, 60);  // the test's 90 does not widen the bounds
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 0), std::vector<double>{0.0});
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 1), std::vector<double>{0.25});
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 2), std::vector<double>{1.0});
  EXPECT_EQ(encode(l.table, l.schema, Part::Test, 0), std::vector<double>{0.0});  // 10 clipped
  EXPECT_EQ(encode(l.table, l.schema, Part::Test, 1), std::vector<double>{0.5});
  EXPECT_EQ(encode(l.table, l.schema, Part::Test, 2), std::vector<double>{1.0});  // 90 clipped
  EXPECT_EQ(age.clipped[1], 2u);
  const auto notices = l.schema.notices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("bounds derived from the training data: age"), std::string::npos);
  EXPECT_NE(notices[0].find("OUTSIDE the privacy guarantee"), std::string::npos);
}

TEST(ColumnSchema, OneHotWithSortedCategoriesOfTrainAndTest) {
  Loaded l("n,c,y\n1,red,a\n2,blue,b\n", "n,c,y\n3,green,a\n");
  ASSERT_EQ(l.schema.dims(), 4u);  // n + {blue, green, red}
  EXPECT_EQ(l.schema.feature_names(), (std::vector<std::string>{"n", "c=blue", "c=green", "c=red"}));
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 0), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 1), (std::vector<double>{1, 1, 0, 0}));
  EXPECT_EQ(encode(l.table, l.schema, Part::Test, 0), (std::vector<double>{1, 0, 1, 0}));  // 3 clipped to 1
  const auto notices = l.schema.notices();
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_NE(notices[1].find("categories found in the data: c"), std::string::npos);
}

TEST(ColumnSchema, MissingCategoryIsAllZerosAndDroppedRowsAddNoCategory) {
  Loaded kept("n,c,y\n1,?,a\n2,x,b\n", "");
  EXPECT_EQ(kept.schema.dims(), 2u);
  EXPECT_EQ(encode(kept.table, kept.schema, Part::Train, 0), (std::vector<double>{0, 0}));
  CsvOptions drop;
  drop.drop_missing = true;
  Loaded dropped("n,c,y\n1,only_here,?\n2,x,b\n3,y,a\n", "", {}, drop);
  EXPECT_EQ(dropped.schema.feature_names(), (std::vector<std::string>{"n", "c=x", "c=y"}));
}

TEST(ColumnSchema, ANumericColumnWithOneNonNumberIsNamedInANotice) {
  // An R export writes NA for a missing number: the column becomes one-hot
  // with a category per distinct number. Said, with the value and its line.
  std::string train = "age,c,y\n";
  for (int i = 0; i < 12; ++i) train += std::to_string(20 + i) + ",x,a\n";
  train += "NA,x,b\n";
  Loaded l(train, "");
  EXPECT_FALSE(l.schema.columns()[0].numeric);
  const auto notices = l.schema.notices();
  ASSERT_FALSE(notices.empty());
  EXPECT_NE(notices[0].find("column \"age\" is one-hot encoded (13 categories) because of the non-number \"NA\" at "),
            std::string::npos)
      << notices[0];
  EXPECT_NE(notices[0].find(":14; its other values are numbers. A missing-value marker? Pass --missing 'NA'"),
            std::string::npos)
      << notices[0];
  // A genuinely categorical column (c) and a short numeric-looking one are not named.
  for (const auto& n : notices) EXPECT_EQ(n.find("column \"c\""), std::string::npos);
  Loaded few("k,y\n1,a\n2,b\nNA,a\n", "");
  for (const auto& n : few.schema.notices()) EXPECT_EQ(n.find("is one-hot encoded"), std::string::npos);
}

TEST(ColumnSchema, NumbersWithADecimalCommaAreNamedInANotice) {
  // A European CSV (';' between fields, ',' for the point): every value was
  // one category, silently. Integers among them ("5") are numbers already.
  CsvOptions semicolon;
  semicolon.dialect.delimiter = ';';
  std::string train = "len;c;y\n5;x;a\n";
  for (int i = 0; i < 12; ++i) train += "4," + std::to_string(i) + ";x;a\n";
  Loaded l(train, "", {}, semicolon);
  EXPECT_FALSE(l.schema.columns()[0].numeric);
  const auto notices = l.schema.notices();
  ASSERT_FALSE(notices.empty());
  EXPECT_NE(notices[0].find("column \"len\" is one-hot encoded (13 categories), but its values are numbers with a "
                            "comma for the point (\"4,0\" at "),
            std::string::npos)
      << notices[0];
  EXPECT_NE(notices[0].find("or pass --categorical len to one-hot encode it on purpose."), std::string::npos);
  // Said only of such columns: not of text with a comma, nor when forced categorical.
  std::string text = "c;y\n";
  for (int i = 0; i < 12; ++i) text += "Smith, J" + std::to_string(i) + ";a\n";
  for (const auto& n : Loaded(text, "", {}, semicolon).schema.notices()) EXPECT_EQ(n.find("comma"), std::string::npos);
  SchemaOptions forced;
  forced.categorical = {"len"};
  for (const auto& n : Loaded(train, "", forced, semicolon).schema.notices())
    EXPECT_EQ(n.find("comma"), std::string::npos);
}

TEST(ColumnSchema, UserBoundsAreUsedAndOutOfRangeValuesClipped) {
  SchemaOptions o;
  parse_bounds_spec("age=0:100", o.bounds);
  Loaded l("age,h,y\n20,5,a\n150,10,b\n", "", o);
  const auto& age = l.schema.columns()[0];
  EXPECT_EQ(age.origin, BoundsOrigin::User);
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 0)[0], 0.2);
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 1)[0], 1.0);
  EXPECT_EQ(age.clipped[0], 1u);
  EXPECT_EQ(l.schema.columns()[1].origin, BoundsOrigin::Data);
  const auto notices = l.schema.notices();
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_NE(notices[0].find("user-given bounds: age (1 values outside the bounds clipped)"), std::string::npos);
  EXPECT_NE(notices[1].find("training data: h"), std::string::npos);
}

TEST(ColumnSchema, StarBoundsApplyToEveryNumericColumnLikeDigitsOver16) {
  SchemaOptions o;
  parse_bounds_spec("*=0:16", o.bounds);
  Loaded l("0,4,16,a\n8,0,2,b\n", "", o);
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 0), (std::vector<double>{0, 0.25, 1}));
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 1), (std::vector<double>{0.5, 0, 0.125}));
  EXPECT_EQ(l.schema.notices().size(), 1u);  // no data-derived bounds left
}

TEST(ColumnSchema, ConstantTrainingColumnEncodesAsZero) {
  Loaded l("k,y\n7,a\n7,b\n", "k,y\n7,a\n9,b\n");
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 0), std::vector<double>{0});
  EXPECT_EQ(encode(l.table, l.schema, Part::Test, 1), std::vector<double>{1});
}

TEST(ColumnSchema, ForcedKindsAndUserCategories) {
  SchemaOptions o;
  o.categorical = {"code"};
  parse_categories_spec("color=red|green", o.categories);
  Loaded l("code,color,y\n10,red,a\n20,blue,b\n10,green,a\n", "", o);
  EXPECT_EQ(l.schema.feature_names(),
            (std::vector<std::string>{"code=10", "code=20", "color=red", "color=green"}));  // user order kept
  EXPECT_EQ(encode(l.table, l.schema, Part::Train, 1), (std::vector<double>{0, 1, 0, 0}));  // blue: not listed
  EXPECT_EQ(l.schema.columns()[1].unlisted, 1u);
}

TEST(ColumnSchema, BadNumberInANumericColumnNamesTheLine) {
  SchemaOptions o;
  o.numeric = {"v"};
  TempFile f("v,y\n1,a\n2x,b\n");
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions());
  EXPECT_LOAD_ERROR(ColumnSchema(t, o), "bad number \"2x\" in numeric column \"v\" at " + f.path() + ":3");
}

TEST(ColumnSchema, TrainingValuesWhoseRangeOverflowsAreRefusedByName) {
  // -1e308 and 1e308 are doubles, their difference is not: every value scaled to inf/inf (NaN).
  TempFile f("a,b,y\n1e308,1,x\n-1e308,2,z\n");
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions());
  SchemaOptions o;
  o.numeric = {"a"};
  EXPECT_LOAD_ERROR(ColumnSchema(t, o),
                    "the range of column \"a\" (from its training values) is too wide: max - min overflows a double");
}

TEST(ColumnSchema, MissingNumericValueIsAnErrorUnlessDropped) {
  TempFile f("v,y\n1,a\n?,b\n");
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions());
  SchemaOptions o;
  o.numeric = {"v"};
  EXPECT_LOAD_ERROR(ColumnSchema(t, o), "missing value in numeric column \"v\" at " + f.path() + ":3");
}

TEST(ColumnSchema, OptionErrors) {
  TempFile f("v,c,y\n1,a,p\n2,b,q\n");
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions());
  SchemaOptions o;
  o.numeric = {"nope"};
  EXPECT_LOAD_ERROR(ColumnSchema(t, o), "unknown column \"nope\" in --numeric");
  o = {};
  o.numeric = {"y"};
  EXPECT_LOAD_ERROR(ColumnSchema(t, o), "--numeric names the label column \"y\"");
  o = {};
  o.numeric = {"v"};
  o.categorical = {"v"};
  EXPECT_LOAD_ERROR(ColumnSchema(t, o), "both --numeric and --categorical");
  o = {};
  parse_bounds_spec("c=0:1", o.bounds);
  EXPECT_LOAD_ERROR(ColumnSchema(t, o), "--bounds given for column \"c\", which is categorical");
}

TEST(BoundsSpec, ParsesListsAndRejectsNonsense) {
  std::map<std::string, Bounds> b;
  parse_bounds_spec("age=17:90, capital-gain=-1e3:99999", b);
  parse_bounds_spec("*=0:16", b);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b["age"].lo, 17);
  EXPECT_EQ(b["age"].hi, 90);
  EXPECT_EQ(b["capital-gain"].lo, -1000);
  EXPECT_EQ(b["*"].hi, 16);
  EXPECT_LOAD_ERROR(parse_bounds_spec("age", b), "bad --bounds item \"age\"");
  EXPECT_LOAD_ERROR(parse_bounds_spec("age=1", b), "bad bounds \"1\"");
  EXPECT_LOAD_ERROR(parse_bounds_spec("age=a:b", b), "bad bounds");
  EXPECT_LOAD_ERROR(parse_bounds_spec("age=5:5", b), "empty bounds 5:5");
  EXPECT_LOAD_ERROR(parse_bounds_spec("a=-1e308:1e308", b),
                    "the range of column \"a\" (from --bounds -1e308:1e308) is too wide: max - min overflows a double");
  std::map<std::string, std::vector<std::string>> c;
  parse_categories_spec("sex=Female|Male", c);
  EXPECT_EQ(c["sex"], (std::vector<std::string>{"Female", "Male"}));
  EXPECT_LOAD_ERROR(parse_categories_spec("sex=a||b", c), "empty category");
  EXPECT_LOAD_ERROR(parse_categories_spec("sex=a|a", c), "listed twice");
}

}  // namespace
}  // namespace dptrain::loader
