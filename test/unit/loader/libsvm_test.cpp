#include <gtest/gtest.h>

#include "core/error.h"
#include "loader/libsvm_source.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

LibsvmRow parse(const std::string& line) {
  static std::string storage;  // the row's label views into the line
  storage = line;
  LibsvmRow row;
  parse_libsvm_line(storage, row, "f:7");
  return row;
}

TEST(LibsvmLine, ParsesLabelAndOneBasedPairs) {
  const LibsvmRow r = parse("+1 3:0.5 10:1e-2 qid:4 # comment 99:1");
  EXPECT_EQ(r.label, "+1");
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].index, 2u);
  EXPECT_EQ(r.entries[0].value, 0.5);
  EXPECT_EQ(r.entries[1].index, 9u);
  EXPECT_EQ(r.entries[1].value, 0.01);
  EXPECT_TRUE(parse("-1").entries.empty());  // a row of zeros
}

TEST(LibsvmLine, MalformedLinesAreErrorsWithTheLocation) {
  EXPECT_LOAD_ERROR(parse("1 3:0.5 7"), "bad LIBSVM pair \"7\" at f:7");
  EXPECT_LOAD_ERROR(parse("1 0:0.5"), "bad feature index \"0\" at f:7");
  EXPECT_LOAD_ERROR(parse("1 x:0.5"), "bad feature index \"x\"");
  EXPECT_LOAD_ERROR(parse("1 4:1 2:1"), "feature index 2 at f:7 is not in increasing order");
  EXPECT_LOAD_ERROR(parse("1 4:1 4:2"), "feature index 4 at f:7 appears twice");
  EXPECT_LOAD_ERROR(parse("1 4:abc"), "bad number \"abc\" for feature 4 at f:7");
  EXPECT_LOAD_ERROR(parse("3:1 4:1"), "missing label at f:7");
}

TEST(LibsvmSource, DenseRowsDimensionsAndSplits) {
  TempFile train("+1 1:0.5 3:1\n\n-1 2:2\n# comment\n+1 4:1\n", ".gz", true), test("-1 5:1\n");
  const LibsvmSource s(train.path(), test.path(), RowSplitter(), 0);
  EXPECT_EQ(s.dims(), 5u);  // the largest index of both files
  ASSERT_EQ(s.rows(Part::Train), 3u);
  ASSERT_EQ(s.rows(Part::Test), 1u);
  std::vector<double> x(5);
  s.features(Part::Train, 0, x.data());
  EXPECT_EQ(x, (std::vector<double>{0.5, 0, 1, 0, 0}));
  s.features(Part::Train, 1, x.data());
  EXPECT_EQ(x, (std::vector<double>{0, 2, 0, 0, 0}));
  EXPECT_EQ(s.origin(Part::Train, 2).row, 2u);
  EXPECT_EQ(s.origin(Part::Train, 2).line, 5u);
  EXPECT_EQ(s.labels().value(s.label_code(Part::Test, 0)), "-1");

  const LibsvmSource fixed(train.path(), std::nullopt, RowSplitter({1}, "list"), 10);
  EXPECT_EQ(fixed.dims(), 10u);
  EXPECT_EQ(fixed.rows(Part::Train), 2u);
  EXPECT_EQ(fixed.rows(Part::Test), 1u);
  EXPECT_LOAD_ERROR(LibsvmSource(train.path(), test.path(), RowSplitter(), 4), "feature index 5 exceeds --dims 4");
}

}  // namespace
}  // namespace dptrain::loader
