// Parses `--flag value` through a string option with the check `check`, as
// the dptrain binary registers such a flag: the parse error's message, or ""
// when the value passed (the option then holds it exactly).
#pragma once

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace dptrain::client::testing {

inline std::string parse_checked_flag(const std::string& flag, const CLI::Validator& check, const std::string& value) {
  CLI::App app{"test"};
  std::string option;
  app.add_option(flag, option)->check(check);
  std::vector<std::string> args{value, flag};  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out;
    EXPECT_NE(app.exit(e, out, out), 0);
    return e.what();
  }
  EXPECT_EQ(option, value);
  return "";
}

}  // namespace dptrain::client::testing
