// A model name with a control character (a newline, ESC, DEL, a C1 control)
// is refused while parsing the command line (train/tune --name, models rename
// --to), naming the flag and the byte; the server refuses it too (22023).
#include "model_name_flag.h"

#include <gtest/gtest.h>

#include <string>

#include "checked_flag.h"

namespace {

std::string parse_name(const std::string& value) {
  return dptrain::client::testing::parse_checked_flag("--name", dptrain::client::model_name_flag(), value);
}

TEST(ModelNameFlag, ControlCharactersAreRefusedNamingTheByte) {
  EXPECT_EQ(parse_name("two\nlines"),
            "--name: a model name must not contain control characters (control character 0x0a at byte 4)");
  EXPECT_EQ(parse_name("\x1b[31mred"),
            "--name: a model name must not contain control characters (control character 0x1b at byte 1)");
  EXPECT_EQ(parse_name("tab\there"),
            "--name: a model name must not contain control characters (control character 0x09 at byte 4)");
  EXPECT_EQ(parse_name("del\x7f"),
            "--name: a model name must not contain control characters (control character 0x7f at byte 4)");
  EXPECT_EQ(parse_name("c1\xc2\x85"),
            "--name: a model name must not contain control characters (control character U+0085 at byte 3)");
}

TEST(ModelNameFlag, PrintableNamesPass) {
  EXPECT_EQ(parse_name("forecast 2"), "");
  EXPECT_EQ(parse_name("r\xc3\xa9sum\xc3\xa9"), "");  // résumé
  EXPECT_EQ(parse_name("\xc2\xa0nbsp"), "");          // U+00A0: printable (not C1)
  EXPECT_EQ(dptrain::client::model_name_problem("\xc2"), "");  // a lone lead byte: no C1 control
}

}  // namespace
