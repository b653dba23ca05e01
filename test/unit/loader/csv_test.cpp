#include <gtest/gtest.h>

#include "core/error.h"
#include "loader/csv.h"
#include "loader/text_input.h"
#include "temp_file.h"

namespace dptrain::loader {
namespace {

using testing::TempFile;

std::vector<std::string> split(const std::string& line, char delimiter = ',') {
  CsvDialect d;
  d.delimiter = delimiter;
  std::vector<std::string_view> fields;
  std::deque<std::string> scratch;
  split_fields(line, d, fields, scratch, "test:1");
  return std::vector<std::string>(fields.begin(), fields.end());
}

TEST(CsvSplit, TrimsBlanksLikeUciFiles) {
  EXPECT_EQ(split("39, State-gov, 77516, ?, <=50K"),
            (std::vector<std::string>{"39", "State-gov", "77516", "?", "<=50K"}));
  EXPECT_EQ(split("a,,b,"), (std::vector<std::string>{"a", "", "b", ""}));
  EXPECT_EQ(split(""), (std::vector<std::string>{""}));
  EXPECT_EQ(split("x\ty\t z", '\t'), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(CsvSplit, QuotedFieldsKeepDelimitersBlanksAndEscapedQuotes) {
  EXPECT_EQ(split(R"("a, b",  " c ",d)"), (std::vector<std::string>{"a, b", " c ", "d"}));
  EXPECT_EQ(split(R"("say ""hi""",2)"), (std::vector<std::string>{"say \"hi\"", "2"}));
  EXPECT_EQ(split(R"("",1)"), (std::vector<std::string>{"", "1"}));
}

TEST(CsvSplit, MalformedQuotesAreErrorsWithTheLocation) {
  EXPECT_LOAD_ERROR(split(R"(1,"open)"), "unterminated quoted field at test:1");
  EXPECT_LOAD_ERROR(split(R"("a"b,1)"), "unexpected text after a closing quote at test:1");
}

TEST(CsvLines, SkipsBlankAndCommentLines) {
  CsvDialect d;
  EXPECT_TRUE(is_skipped_line("", d));
  EXPECT_TRUE(is_skipped_line("  \r", d));
  EXPECT_TRUE(is_skipped_line("|1x3 Cross validator", d));
  EXPECT_FALSE(is_skipped_line("25, Private", d));
  d.comment_prefixes = "";
  EXPECT_FALSE(is_skipped_line("|x", d));
}

TEST(Numbers, AcceptsDecimalNumbersOnly) {
  EXPECT_EQ(parse_number("3"), 3.0);
  EXPECT_EQ(parse_number("-0.5"), -0.5);
  EXPECT_EQ(parse_number("+1"), 1.0);
  EXPECT_EQ(parse_number("1e-3"), 1e-3);
  EXPECT_EQ(parse_number(".5"), 0.5);
  EXPECT_EQ(parse_number("77516"), 77516.0);
  for (const char* bad : {"", "+", "-", "nan", "inf", "-inf", "0x10", "1,5", "1.2.3", "12abc", "++1", "+-1", " 1",
                          "1e999", "State-gov", "?"})
    EXPECT_FALSE(parse_number(bad).has_value()) << bad;
}

TEST(Labels, OneTrailingDotIsDropped) {
  EXPECT_EQ(normalize_label(">50K."), ">50K");
  EXPECT_EQ(normalize_label("normal."), "normal");
  EXPECT_EQ(normalize_label(">50K"), ">50K");
  EXPECT_EQ(normalize_label("."), ".");
}

TEST(LineReader, ReadsPlainAndGzipFilesTheSameWay) {
  const std::string content = "first\r\nsecond\n\nlast without newline";
  for (bool gz : {false, true}) {
    TempFile f(content, gz ? ".gz" : ".txt", gz);
    LineReader in(f.path());
    std::vector<std::string> lines;
    std::string line;
    while (in.next(line)) lines.push_back(line);
    EXPECT_EQ(lines, (std::vector<std::string>{"first", "second", "", "last without newline"})) << "gzip " << gz;
    EXPECT_EQ(in.line_number(), 4u);
  }
}

TEST(LineReader, DropsAUtf8ByteOrderMarkOnTheFirstLineOnly) {
  TempFile f("\xEF\xBB\xBF" "age,y\n\xEF\xBB\xBF" "1,a\n");
  LineReader in(f.path());
  std::string line;
  ASSERT_TRUE(in.next(line));
  EXPECT_EQ(line, "age,y");
  ASSERT_TRUE(in.next(line));
  EXPECT_EQ(line, "\xEF\xBB\xBF" "1,a");
}

TEST(LineReader, TextThatIsNotUtf8IsAClearError) {
  // A Latin-1 export ("Café" as 43 61 66 E9) used to fail late, as an internal
  // JSON error ("[json.exception.type_error.316] incomplete UTF-8 string").
  std::string line;
  {
    TempFile f("name,y\nCaf\xE9,a\n");
    LineReader in(f.path());
    ASSERT_TRUE(in.next(line));
    EXPECT_LOAD_ERROR(in.next(line), ":2 is not valid UTF-8 (byte 0xE9 at byte 4 of the line)");
  }
  {
    TempFile f(std::string("a,y\n1\0,b\n", 9));
    LineReader in(f.path());
    ASSERT_TRUE(in.next(line));
    EXPECT_LOAD_ERROR(in.next(line), ":2 holds a NUL byte");
  }
  // Well-formed UTF-8 of 2, 3 and 4 bytes passes; overlong forms, surrogates
  // and truncated sequences do not.
  TempFile good("caf\xC3\xA9,\xE2\x82\xAC,\xF0\x9F\x98\x80\n");
  LineReader in(good.path());
  ASSERT_TRUE(in.next(line));
  EXPECT_EQ(line, "caf\xC3\xA9,\xE2\x82\xAC,\xF0\x9F\x98\x80");
  for (const char* bad : {"\xC0\xAF", "\xED\xA0\x80", "\xE2\x82", "\xF5\x80\x80\x80", "ok\xC3"}) {
    TempFile f(std::string(bad) + "\n");
    LineReader r(f.path());
    EXPECT_LOAD_ERROR(r.next(line), "is not valid UTF-8");
  }
}

TEST(LineReader, LongLinesCrossBufferBoundaries) {
  const std::string longline(700000, 'x');
  TempFile f("a\n" + longline + "\nb\n", ".gz", true);
  LineReader in(f.path());
  std::string line;
  ASSERT_TRUE(in.next(line));
  ASSERT_TRUE(in.next(line));
  EXPECT_EQ(line.size(), longline.size());
  ASSERT_TRUE(in.next(line));
  EXPECT_EQ(line, "b");
  EXPECT_FALSE(in.next(line));
}

// Fuzzing: a line without end (/dev/zero, a binary file, a gzip bomb of one
// line) grew the buffer until memory ran out; now it is refused past the limit.
TEST(LineReader, ALineBeyondTheLimitIsAnErrorNotEndlessGrowth) {
  const std::size_t limit = 1 << 20;
  TempFile f(std::string(limit, 'x') + "\n" + std::string(limit + 1, 'y') + "\n", ".gz", true);
  LineReader in(f.path(), limit);
  std::string line;
  ASSERT_TRUE(in.next(line));
  EXPECT_EQ(line.size(), limit);
  EXPECT_LOAD_ERROR(in.next(line), f.path() + ":2 is longer than 1048576 bytes");
  LineReader zeros("/dev/zero", limit);
  EXPECT_LOAD_ERROR(zeros.next(line), "/dev/zero:1 is longer than 1048576 bytes");
}

TEST(LineReader, MissingFileIsAClearError) {
  EXPECT_LOAD_ERROR(LineReader("/nonexistent/dir/adult.data"),
                    "cannot open input file \"/nonexistent/dir/adult.data\": No such file or directory");
  EXPECT_LOAD_ERROR(LineReader("/tmp"), "is a directory");
}

// --test-file F with F the training file, by any path to it, is refused (cmd_load.cpp).
TEST(SameFile, ComparesDeviceAndInodeNotPaths) {
  TempFile a("1,x\n"), b("1,x\n");
  const std::string dir = a.path().substr(0, a.path().rfind('/'));
  const std::string dotted = dir + "/./" + a.path().substr(dir.size() + 1);
  const std::string link = a.path() + ".link";
  ASSERT_EQ(::symlink(a.path().c_str(), link.c_str()), 0);
  EXPECT_TRUE(same_file(a.path(), a.path()));
  EXPECT_TRUE(same_file(a.path(), dotted));
  EXPECT_TRUE(same_file(link, a.path()));
  EXPECT_FALSE(same_file(a.path(), b.path()));  // equal content, another file
  EXPECT_FALSE(same_file(a.path(), "/nonexistent/dir/adult.data"));
  std::remove(link.c_str());
}

TEST(LineReader, TruncatedGzipIsAnError) {
  std::string content;
  for (int i = 0; i < 20000; ++i) content += std::to_string(i * 7919) + ",abc\n";
  TempFile whole(content, ".gz", true);
  std::vector<unsigned char> bytes(content.size() + 1);
  EXPECT_EQ(BinaryInput(whole.path()).read(bytes.data(), bytes.size()), content.size());
  // Cut the compressed file in half.
  FILE* f = std::fopen(whole.path().c_str(), "rb");
  std::string compressed(1 << 20, '\0');
  compressed.resize(std::fread(compressed.data(), 1, compressed.size(), f));
  std::fclose(f);
  TempFile cut(compressed.substr(0, compressed.size() / 2), ".gz");
  LineReader in(cut.path());
  std::string line;
  EXPECT_LOAD_ERROR(
      {
        while (in.next(line)) {
        }
      },
      "cannot read");
}

}  // namespace
}  // namespace dptrain::loader
