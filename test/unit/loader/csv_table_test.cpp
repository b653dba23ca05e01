#include <gtest/gtest.h>

#include "core/error.h"
#include "loader/csv_table.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

std::vector<std::string> row_values(const CsvTable& t, Part p, std::size_t i) {
  std::vector<std::string> out;
  const CsvPart& part = t.part(p);
  for (std::size_t f = 0; f < t.width(); ++f) {
    const std::uint32_t c = part.codes[i * t.width() + f];
    out.push_back(c == kMissing ? "<missing>" : t.values[f].value(c));
  }
  out.push_back(t.labels.value(part.label[i]));
  return out;
}

TEST(HeaderDetection, NamesNoneAndScikitLearn) {
  const std::vector<std::string> names{"age", "job", "y"}, data{"39", "clerk", "no"}, text{"a", "b", "c"};
  EXPECT_EQ(detect_header(names, &data), HeaderKind::Names);
  EXPECT_EQ(detect_header(data, &data), HeaderKind::None);
  EXPECT_EQ(detect_header(text, &text), HeaderKind::None);  // all text: cannot tell, so data
  EXPECT_EQ(detect_header(names, nullptr), HeaderKind::None);
  const std::vector<std::string> sk{"569", "2", "malignant", "benign"}, skrow{"17.9", "10.3", "0"};
  EXPECT_EQ(detect_header(sk, &skrow), HeaderKind::Sklearn);
  const std::vector<std::string> short_row{"17.9", "0"}, bad_class{"17.9", "10.3", "2"};
  EXPECT_EQ(detect_header(sk, &short_row), HeaderKind::None);
  EXPECT_EQ(detect_header(sk, &bad_class), HeaderKind::None);  // class index beyond the two names
  const std::vector<std::string> one_class{"1", "2", "a"}, row3{"3", "4", "0"};
  EXPECT_EQ(detect_header(one_class, &row3), HeaderKind::None);  // data that merely looks like it
  // A delimiter at the end of every line: the empty last name does not make
  // the header a data row (it used to become one, labelled "label").
  const std::vector<std::string> trailing{"age", "job", "y", ""}, trailing_row{"39", "clerk", "no", ""};
  EXPECT_EQ(detect_header(trailing, &trailing_row), HeaderKind::Names);
  EXPECT_EQ(detect_header(trailing, &data), HeaderKind::None);  // 4 names, 3 fields
}

TEST(CsvTable, UciFileWithoutHeaderAndACommentLine) {
  TempFile f(
      "|1x3 Cross validator\n"
      "39, State-gov, 77516, <=50K.\n"
      "\n"
      "50, Self-emp, 83311, >50K.\n");
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions());
  EXPECT_EQ(t.header, HeaderKind::None);
  EXPECT_EQ(t.names, (std::vector<std::string>{"c1", "c2", "c3", "c4"}));
  EXPECT_EQ(t.label_column, 3u);
  ASSERT_EQ(t.part(Part::Train).rows(), 2u);
  EXPECT_EQ(row_values(t, Part::Train, 0), (std::vector<std::string>{"39", "State-gov", "77516", "<=50K"}));
  EXPECT_EQ(row_values(t, Part::Train, 1), (std::vector<std::string>{"50", "Self-emp", "83311", ">50K"}));
  EXPECT_EQ(t.part(Part::Train).origin[1].row, 1u);   // data rows: comment and blank lines not counted
  EXPECT_EQ(t.part(Part::Train).origin[1].line, 4u);  // but lines are
  EXPECT_EQ(t.part(Part::Test).rows(), 0u);
}

TEST(CsvTable, HeaderNamesAndLabelByNameOrNumber) {
  TempFile f("x1,kind,y\n1.5,a,yes\n2,b,no\n");
  CsvOptions o;
  o.label = "kind";
  CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  EXPECT_EQ(t.header, HeaderKind::Names);
  EXPECT_EQ(t.label_column, 1u);
  EXPECT_EQ(row_values(t, Part::Train, 0), (std::vector<std::string>{"1.5", "yes", "a"}));
  o.label = "1";
  t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  EXPECT_EQ(t.label_column, 0u);
  o.label = "nope";
  EXPECT_LOAD_ERROR(read_csv(f.path(), std::nullopt, RowSplitter(), o), "unknown label column \"nope\"");
}

TEST(CsvTable, ExplicitHeaderFlagsAndColumnNames) {
  TempFile f("a,b,c\nd,e,f\n");
  CsvOptions o;
  o.header = true;
  CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  EXPECT_EQ(t.names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t.part(Part::Train).rows(), 1u);
  o.header = false;
  o.column_names = {"p", "q", "r"};
  t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  EXPECT_EQ(t.names, o.column_names);
  EXPECT_EQ(t.part(Part::Train).rows(), 2u);
  o.column_names = {"p", "q"};
  EXPECT_LOAD_ERROR(read_csv(f.path(), std::nullopt, RowSplitter(), o), "--columns names 2 columns");
  o.column_names = {"p", "p", "q"};
  EXPECT_LOAD_ERROR(read_csv(f.path(), std::nullopt, RowSplitter(), o), "column name \"p\" appears twice");
}

TEST(CsvTable, RaggedRowIsAnErrorWithFileAndLine) {
  TempFile f("1,2,a\n3,4,b\n5,c\n");
  EXPECT_LOAD_ERROR(read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions()),
                    "ragged row at " + f.path() + ":3: 2 fields, expected 3");
}

TEST(CsvTable, MissingValuesAreKeptOrRowsDropped) {
  TempFile f("1, ?, a\n2, x, b\n?, y, a\n4, , b\n");
  CsvOptions o;
  CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  ASSERT_EQ(t.part(Part::Train).rows(), 4u);
  EXPECT_EQ(row_values(t, Part::Train, 0)[1], "<missing>");
  EXPECT_EQ(row_values(t, Part::Train, 3)[1], "<missing>");  // an empty cell is missing too
  o.drop_missing = true;
  t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  ASSERT_EQ(t.part(Part::Train).rows(), 1u);
  EXPECT_EQ(t.part(Part::Train).dropped, 3u);
  EXPECT_EQ(t.part(Part::Train).origin[0].row, 1u);
  o.drop_missing = false;
  o.missing = {"NA"};
  t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  EXPECT_EQ(row_values(t, Part::Train, 0)[1], "?");  // "?" is a value when the marker is NA
}

TEST(CsvTable, MissingLabelIsAnError) {
  TempFile f("1,a\n2,?\n");
  EXPECT_LOAD_ERROR(read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions()),
                    "missing label at " + f.path() + ":2");
}

TEST(CsvTable, ATrailingDelimiterOnEveryLineIsNamedAndLabelSkipsIt) {
  TempFile f("age,job,y,\n39,clerk,no,\n50,nurse,yes,\n");
  EXPECT_LOAD_ERROR(read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions()),
                    "missing label at " + f.path() + ":2: the last column is empty");
  CsvOptions o;
  o.label = "y";
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  EXPECT_EQ(t.header, HeaderKind::Names);
  EXPECT_EQ(t.part(Part::Train).rows(), 2u);
  EXPECT_EQ(row_values(t, Part::Train, 1), (std::vector<std::string>{"50", "nurse", "<missing>", "yes"}));
  // Without such a header an empty last field is an ordinary missing label
  // (scikit-learn's boston file: a first line "506,13,,,", not a trailing delimiter).
  TempFile other("506,13,,\n1,2,3,4\n");
  try {
    read_csv(other.path(), std::nullopt, RowSplitter(), CsvOptions());
    ADD_FAILURE() << "expected a missing label";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("the last column is empty"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing label at " + other.path() + ":1"), std::string::npos) << e.what();
  }
}

TEST(CsvTable, TestFileSharesDictionariesAndChecksItsHeader) {
  TempFile train("a,b,y\n1,u,p\n2,v,q\n"), test("a,b,y\n3,w,p.\n"), other("a,c,y\n3,w,p\n"), narrow("1,p\n");
  const CsvTable t = read_csv(train.path(), test.path(), RowSplitter(), CsvOptions());
  ASSERT_EQ(t.part(Part::Test).rows(), 1u);
  EXPECT_EQ(row_values(t, Part::Test, 0), (std::vector<std::string>{"3", "w", "p"}));
  EXPECT_EQ(t.values[1].size(), 3u);  // u, v, w
  EXPECT_LOAD_ERROR(read_csv(train.path(), other.path(), RowSplitter(), CsvOptions()), "differs from the training");
  EXPECT_LOAD_ERROR(read_csv(train.path(), narrow.path(), RowSplitter(), CsvOptions()), "ragged row");
}

TEST(CsvTable, TestRowsSplitOneFileByDataRowNumber) {
  TempFile f("h1,h2\n0,a\n1,b\n2,c\n3,d\n");
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter({1, 3}, "list"), CsvOptions());
  ASSERT_EQ(t.part(Part::Train).rows(), 2u);
  ASSERT_EQ(t.part(Part::Test).rows(), 2u);
  EXPECT_EQ(row_values(t, Part::Test, 0), (std::vector<std::string>{"1", "b"}));
  EXPECT_EQ(t.part(Part::Test).origin[1].row, 3u);
  EXPECT_LOAD_ERROR(read_csv(f.path(), std::nullopt, RowSplitter({1, 4}, "list"), CsvOptions()),
                    "names row 4, but \"" + f.path() + "\" has only 4 data rows");
}

TEST(CsvTable, ScikitLearnHeaderMapsClassIndicesToNames) {
  TempFile f("3,2,malignant,benign\n17.9,10.3,0\n20.5,17.7,1\n19.6,21.2,1\n");
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), CsvOptions());
  EXPECT_EQ(t.header, HeaderKind::Sklearn);
  EXPECT_EQ(t.sklearn_classes, (std::vector<std::string>{"malignant", "benign"}));
  ASSERT_EQ(t.part(Part::Train).rows(), 3u);
  EXPECT_EQ(row_values(t, Part::Train, 0), (std::vector<std::string>{"17.9", "10.3", "malignant"}));
  EXPECT_EQ(row_values(t, Part::Train, 2).back(), "benign");
  EXPECT_EQ(t.part(Part::Train).origin[0].row, 0u);  // the header line is not a data row
}

TEST(CsvTable, ScikitLearnClassNamesOnlyForTheLastColumn) {
  TempFile f("2,2,a,b\n5,1,0\n6,0,1\n");
  CsvOptions o;
  o.label = "c2";
  const CsvTable t = read_csv(f.path(), std::nullopt, RowSplitter(), o);
  EXPECT_EQ(row_values(t, Part::Train, 0), (std::vector<std::string>{"5", "0", "1"}));
}

TEST(CsvTable, ScikitLearnHeaderErrors) {
  TempFile bad_index("2,1,a,b\n1.0,0\n2.0,2\n"), short_file("5,1,a,b\n1.0,0\n2.0,1\n"), no_header("1,2\n3,4\n");
  EXPECT_LOAD_ERROR(read_csv(bad_index.path(), std::nullopt, RowSplitter(), CsvOptions()),
                    "unknown label \"2\" at " + bad_index.path() + ":3: not a class index of the header (0..1)");
  EXPECT_LOAD_ERROR(read_csv(short_file.path(), std::nullopt, RowSplitter(), CsvOptions()),
                    "declares 5 rows in its header but holds 2");
  CsvOptions o;
  o.sklearn_header = true;
  EXPECT_LOAD_ERROR(read_csv(no_header.path(), std::nullopt, RowSplitter(), o),
                    "does not start with a scikit-learn header");
}

TEST(CsvTable, EmptyOrFullyDroppedInputIsAnError) {
  TempFile empty("\n|comment only\n"), all_missing("1,?,a\n");
  EXPECT_LOAD_ERROR(read_csv(empty.path(), std::nullopt, RowSplitter(), CsvOptions()), "holds no data");
  CsvOptions o;
  o.drop_missing = true;
  EXPECT_LOAD_ERROR(read_csv(all_missing.path(), std::nullopt, RowSplitter(), o), "no training rows");
}

TEST(TestRows, ReadsSortsAndRejectsBadLists) {
  TempFile good("5\n0\n\n# comment\n3\n", ".gz", true), dup("1\n1\n"), bad("1\nx2\n"), negative("-1\n"),
      empty("\n");
  EXPECT_EQ(read_test_rows(good.path()), (std::vector<std::uint64_t>{0, 3, 5}));
  EXPECT_LOAD_ERROR(read_test_rows(dup.path()), "row 1 is listed twice");
  EXPECT_LOAD_ERROR(read_test_rows(bad.path()), "bad row number \"x2\" at " + bad.path() + ":2");
  EXPECT_LOAD_ERROR(read_test_rows(negative.path()), "bad row number \"-1\"");
  EXPECT_LOAD_ERROR(read_test_rows(empty.path()), "is empty");
  EXPECT_LOAD_ERROR(read_test_rows("/nonexistent/split.txt"), "cannot open input file");
}

}  // namespace
}  // namespace dptrain::loader
