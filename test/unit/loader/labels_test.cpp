#include <gtest/gtest.h>

#include "core/error.h"
#include "loader/labels.h"

namespace dptrain::loader {
namespace {

// A label dictionary; the first `train` entries occur in training rows.
struct Labels {
  Labels(std::vector<std::string> values, std::size_t train) {
    for (const auto& v : values) dict.intern(v);
    in_train.assign(values.size(), false);
    for (std::size_t i = 0; i < train; ++i) in_train[i] = true;
  }
  LabelEncoder encoder(LabelOptions o = {}) const { return LabelEncoder(dict, in_train, o); }
  std::uint32_t code(const std::string& v) const { return dict.find(v); }
  Dictionary dict;
  std::vector<bool> in_train;
};

TEST(LabelEncoder, PositiveValueMakesABooleanTask) {
  const Labels l({"<=50K", ">50K"}, 2);
  LabelOptions o;
  o.positive = ">50K.";  // a trailing dot is ignored, as in adult.test
  const LabelEncoder e = l.encoder(o);
  EXPECT_EQ(e.type(), LabelType::Boolean);
  EXPECT_EQ(e.positive(), ">50K");
  EXPECT_TRUE(e.value(l.code(">50K")).boolean);
  EXPECT_FALSE(e.value(l.code("<=50K")).boolean);
  EXPECT_EQ(e.classes(), (std::vector<std::string>{">50K", "<=50K"}));
  EXPECT_STREQ(label_sql_type(e.type()), "boolean");
}

TEST(LabelEncoder, UnknownPositiveIsAnError) {
  const Labels l({"<=50K", ">50K"}, 2);
  LabelOptions o;
  o.positive = ">60K";
  try {
    l.encoder(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown label \">60K\" given as --positive");
    EXPECT_EQ(e.detail(), "Labels in the training rows: <=50K, >50K.");
  }
}

TEST(LabelEncoder, BinaryTaskRejectsTestLabelsTrainingNeverShows) {
  const Labels l({"no", "yes", "maybe"}, 2);  // "maybe" only in the test rows
  LabelOptions o;
  o.positive = "yes";
  const LabelEncoder e = l.encoder(o);
  EXPECT_TRUE(e.known(l.code("no")));
  EXPECT_FALSE(e.known(l.code("maybe")));
}

TEST(LabelEncoder, OneVsRestTreatsUnseenTestLabelsAsNegative) {
  const Labels l({"normal", "smurf", "neptune", "spy"}, 3);  // KDD: "spy" only in test
  LabelOptions o;
  o.positive = "normal";
  const LabelEncoder e = l.encoder(o);
  EXPECT_TRUE(e.known(l.code("spy")));
  EXPECT_FALSE(e.value(l.code("spy")).boolean);
  EXPECT_TRUE(e.value(l.code("normal")).boolean);
  EXPECT_EQ(e.classes(), (std::vector<std::string>{"normal", "neptune", "smurf"}));
}

// y holds 2 classes however many labels map to false; the load summary
// counted classes(), every raw label: "23 classes (y boolean" for KDD normal vs attack.
TEST(LabelEncoder, BooleanLabelHasTwoClassesAndDescribesItsMapping) {
  const Labels kdd({"normal", "smurf", "neptune", "back", "satan"}, 5);
  LabelOptions o;
  o.positive = "normal.";
  const LabelEncoder e = kdd.encoder(o);
  EXPECT_EQ(e.classes().size(), 5u);  // the load spec's label mapping is unchanged
  EXPECT_EQ(e.class_count(), 2u);
  EXPECT_EQ(e.describe_type(),
            "boolean, true = normal, false = every other label (4 in train: back, neptune, satan, ...)");
  const Labels adult({"<=50K", ">50K"}, 2);
  o.positive = ">50K";
  EXPECT_EQ(adult.encoder(o).class_count(), 2u);
  EXPECT_EQ(adult.encoder(o).describe_type(), "boolean, true = >50K, false = <=50K");
  const LabelEncoder pm = Labels({"+1", "-1"}, 2).encoder();
  EXPECT_EQ(pm.class_count(), 2u);
  EXPECT_EQ(pm.describe_type(), "boolean, true = +1, false = -1");
  EXPECT_EQ(Labels({"0", "3", "7"}, 3).encoder().class_count(), 3u);
}

// The classes of y as stored, for `dptrain load --json` ("classes" listed
// classes(), the raw labels, beside a text summary that says "2 classes").
TEST(LabelEncoder, StoredClassesAreThoseOfY) {
  const Labels kdd({"normal", "smurf", "neptune", "back", "satan"}, 5);
  LabelOptions o;
  o.positive = "normal";
  const LabelEncoder e = kdd.encoder(o);
  EXPECT_EQ(e.stored_classes(), (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(e.negative_labels(), (std::vector<std::string>{"back", "neptune", "satan", "smurf"}));
  const LabelEncoder pm = Labels({"+1", "-1"}, 2).encoder();
  EXPECT_EQ(pm.stored_classes(), (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(pm.negative_labels(), std::vector<std::string>{"-1"});
  const LabelEncoder digits = Labels({"7", "0", "3"}, 3).encoder();
  EXPECT_EQ(digits.stored_classes(), (std::vector<std::string>{"0", "3", "7"}));
  EXPECT_TRUE(digits.negative_labels().empty());
}

TEST(LabelEncoder, PlusMinusOneIsBooleanAndNumbersMatchAsNumbers) {
  const Labels l({"+1", "-1", "1"}, 2);  // a test file writing "1" for "+1"
  const LabelEncoder e = l.encoder();
  EXPECT_EQ(e.type(), LabelType::Boolean);
  EXPECT_EQ(e.positive(), "+1");
  EXPECT_TRUE(e.value(l.code("+1")).boolean);
  EXPECT_FALSE(e.value(l.code("-1")).boolean);
  EXPECT_TRUE(e.known(l.code("1")));
  EXPECT_TRUE(e.value(l.code("1")).boolean);
  LabelOptions o;
  o.positive = "-1";  // the user may pick the other class
  const LabelEncoder neg = l.encoder(o);
  EXPECT_TRUE(neg.value(l.code("-1")).boolean);
  EXPECT_FALSE(neg.value(l.code("1")).boolean);
}

TEST(LabelEncoder, IntegersStayIntegers) {
  const Labels l({"7", "0", "3", "3.0", "11"}, 3);
  const LabelEncoder e = l.encoder();
  EXPECT_EQ(e.type(), LabelType::Integer);
  EXPECT_EQ(e.classes(), (std::vector<std::string>{"0", "3", "7"}));
  EXPECT_EQ(e.value(l.code("7")).integer, 7);
  EXPECT_TRUE(e.known(l.code("3.0")));
  EXPECT_EQ(e.value(l.code("3.0")).integer, 3);
  EXPECT_FALSE(e.known(l.code("11")));
  EXPECT_STREQ(label_sql_type(e.type()), "integer");
}

TEST(LabelEncoder, AnythingElseIsText) {
  const Labels l({"setosa", "versicolor", "2.5", "virginica"}, 3);
  const LabelEncoder e = l.encoder();
  EXPECT_EQ(e.type(), LabelType::Text);
  EXPECT_EQ(e.classes(), (std::vector<std::string>{"2.5", "setosa", "versicolor"}));
  EXPECT_EQ(e.value(l.code("setosa")).text, "setosa");
  EXPECT_FALSE(e.known(l.code("virginica")));
}

TEST(LabelEncoder, TooManyClassesSuggestsTheWrongColumn) {
  std::vector<std::string> many;
  for (int i = 0; i < 150; ++i) many.push_back("v" + std::to_string(i));
  const Labels l(many, many.size());
  try {
    l.encoder();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ProgramLimit);
    EXPECT_NE(std::string(e.what()).find("150 distinct values (more than 100)"), std::string::npos);
    EXPECT_NE(e.hint().find("Is --label the right column?"), std::string::npos);
  }
  LabelOptions o;
  o.max_classes = 200;
  EXPECT_EQ(l.encoder(o).classes().size(), 150u);
}

}  // namespace
}  // namespace dptrain::loader
