// A malformed JSON flag (--options, --bounds, --categories, --grid) is
// refused while parsing the command line, naming the flag and what was wrong
// (it was a bare "[json.exception.parse_error.101] ..." after the parse).
#include "json_flags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checked_flag.h"

namespace {

std::string parse_options(const std::string& value) {
  return dptrain::client::testing::parse_checked_flag("--options", dptrain::client::json_object_flag(), value);
}

TEST(JsonFlags, MalformedJsonNamesTheFlagAndTheError) {
  EXPECT_EQ(parse_options("{accountant: basic}"),
            "--options: not valid JSON: parse error at line 1, column 2: syntax error while parsing object key - "
            "invalid literal; last read: '{a'; expected string literal");
  EXPECT_EQ(parse_options(R"({"tolerance": 0.1)"),
            "--options: not valid JSON: parse error at line 1, column 18: syntax error while parsing object - "
            "unexpected end of input; expected '}'");
  EXPECT_EQ(parse_options(""), "--options: not valid JSON: parse error at line 1, column 1: syntax error while "
                               "parsing value - unexpected end of input; expected '[', '{', or a literal");
}

TEST(JsonFlags, OnlyAnObjectIsAccepted) {
  EXPECT_EQ(parse_options("[1, 2]"), "--options: must be a JSON object in braces, e.g. '{}', not [1,2]");
  EXPECT_EQ(parse_options("5"), "--options: must be a JSON object in braces, e.g. '{}', not 5");
  EXPECT_EQ(parse_options("{}"), "");
  EXPECT_EQ(parse_options(R"({"accountant": "basic", "tolerance": 1e-3})"), "");
}

}  // namespace

namespace {

TEST(JsonFlags, AnEmptyGridMeansTheDefaultLists) {
  // dptrain tune --grid '' = not given (as before the check); --options '' stays an error (above).
  CLI::App app{"test"};
  std::string grid = "unset";
  app.add_option("--grid", grid)->check(dptrain::client::json_object_flag(/*empty_means_default=*/true));
  std::vector<std::string> args{"", "--grid"};
  EXPECT_NO_THROW(app.parse(args));
  EXPECT_EQ(grid, "");
  std::vector<std::string> bad{"[1]", "--grid"};
  EXPECT_THROW(app.parse(bad), CLI::ValidationError);
}

}  // namespace
