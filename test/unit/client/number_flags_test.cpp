// Numeric CLI flags are read exactly or refused, naming the flag (CLI11 2.1
// clamped --seed 99999999999999999999 to INT64_MAX, wrapped --max-classes -1
// to 2^64 - 1, read --epochs 010 as octal 8 and --delta 1e-400 as 0).
#include "number_flags.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Flags {
  std::int64_t seed = 0;
  std::uint64_t projection_seed = 0;
  std::size_t max_classes = 100;
  int epochs = 0;
  double delta = 0;
  std::vector<double> features;
  std::string name;
};

// Parses `args` with the flags of a subcommand `train`, as the dptrain binary
// registers them, then check_number_flags on the top-level app. Returns the
// error message ("" if the parse succeeded).
std::string parse(std::vector<std::string> args, Flags& f) {
  CLI::App app{"test"};
  CLI::App* cmd = app.add_subcommand("train");
  cmd->add_option("--seed", f.seed);
  cmd->add_option("--projection-seed", f.projection_seed);
  cmd->add_option("--max-classes", f.max_classes)->capture_default_str();
  cmd->add_option("--epochs", f.epochs);
  cmd->add_option("--delta", f.delta);
  cmd->add_option("--features", f.features)->delimiter(',');
  cmd->add_option("--name", f.name);
  dptrain::client::check_number_flags(app);
  args.insert(args.begin(), "train");
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out;
    EXPECT_NE(app.exit(e, out, out), 0) << e.what();
    return e.what();
  }
  return "";
}

std::string parse(std::vector<std::string> args) {
  Flags f;
  return parse(std::move(args), f);
}

TEST(NumberFlags, OverflowingIntegerIsRefusedNamingTheFlag) {
  EXPECT_EQ(parse({"--seed", "99999999999999999999"}),
            "--seed: 99999999999999999999 is out of range (an integer from -9223372036854775808 to "
            "9223372036854775807)");
  EXPECT_EQ(parse({"--seed", "-9223372036854775809"}).rfind("--seed: -9223372036854775809 is out of range", 0), 0u);
  EXPECT_EQ(parse({"--projection-seed", "18446744073709551616"}),
            "--projection-seed: 18446744073709551616 is out of range (an integer from 0 to 18446744073709551615)");
}

TEST(NumberFlags, NegativeUnsignedIsRefusedNotWrapped) {
  EXPECT_EQ(parse({"--max-classes", "-1"}), "--max-classes: -1 is not a non-negative decimal integer");
  EXPECT_EQ(parse({"--projection-seed", "-5"}), "--projection-seed: -5 is not a non-negative decimal integer");
}

TEST(NumberFlags, GarbageAndHexadecimalAreRefused) {
  EXPECT_EQ(parse({"--seed", "abc"}), "--seed: abc is not a decimal integer");
  EXPECT_EQ(parse({"--seed", "12abc"}), "--seed: 12abc is not a decimal integer");
  EXPECT_EQ(parse({"--seed", "0x10"}), "--seed: 0x10 is not a decimal integer");
  EXPECT_EQ(parse({"--seed", "1.5"}), "--seed: 1.5 is not a decimal integer");
  EXPECT_EQ(parse({"--delta", "abc"}), "--delta: abc is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)");
  EXPECT_EQ(parse({"--features", "0.5,x"}), "--features: x is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)");
}

TEST(NumberFlags, FloatsThatDoNotFitAreRefused) {
  EXPECT_EQ(parse({"--delta", "1e999"}), "--delta: 1e999 is out of range (a magnitude of at most about 1.8e308)");
  EXPECT_EQ(parse({"--delta", "-1e999"}), "--delta: -1e999 is out of range (a magnitude of at most about 1.8e308)");
  EXPECT_EQ(parse({"--delta", "1e-400"}), "--delta: 1e-400 is too close to 0 (it would read as 0)");
  EXPECT_EQ(parse({"--delta", "nan"}), "--delta: nan is not a finite number");
  EXPECT_EQ(parse({"--delta", "inf"}), "--delta: inf is not a finite number");
}

TEST(NumberFlags, NonDecimalFloatsAreRefused) {
  // strtod read C99 hexadecimal floats (--epsilon 0x10 was 16) and skipped
  // leading white space; only decimal numbers are values now.
  const std::string hint = " is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)";
  for (const char* text : {"0x10", "0X1p4", "0xAp-2000", "0x0p-2000", " 1", "1 ", "1,5", "1.5.", "e5", ".", "+", "1e",
                           "1e+", "1_000"})
    EXPECT_EQ(parse({"--delta", text}), std::string("--delta: ") + text + hint) << text;
  EXPECT_EQ(parse({"--features", "0.5,0xe"}), "--features: 0xe" + hint);
  for (const char* text : {"inf", "-Infinity", "+INF", "NaN", "-nan"})
    EXPECT_EQ(parse({"--delta", text}), std::string("--delta: ") + text + " is not a finite number") << text;
}

TEST(NumberFlags, DecimalFormsAreRead) {
  Flags f;
  ASSERT_EQ(parse({"--delta", ".5", "--features", "0.5,5.,-.25,+1e-5,1E2,0e-999"}, f), "");
  EXPECT_EQ(f.delta, 0.5);
  EXPECT_EQ(f.features, (std::vector<double>{0.5, 5, -0.25, 1e-5, 100, 0}));
}

TEST(NumberFlags, ValidValuesReadExactly) {
  Flags f;
  ASSERT_EQ(parse({"--seed", "-9223372036854775808", "--projection-seed", "18446744073709551615", "--max-classes",
                   "007", "--epochs", "010", "--delta", "1e-5", "--features", "0.5,-2,0e-999", "--name", "x1e999"},
                  f),
            "");
  EXPECT_EQ(f.seed, INT64_MIN);
  EXPECT_EQ(f.projection_seed, UINT64_MAX);
  EXPECT_EQ(f.max_classes, 7u);
  EXPECT_EQ(f.epochs, 10);  // decimal, not octal 8
  EXPECT_EQ(f.delta, 1e-5);
  EXPECT_EQ(f.features, (std::vector<double>{0.5, -2, 0}));
  EXPECT_EQ(f.name, "x1e999");  // text flags are not numbers
  Flags g;
  ASSERT_EQ(parse({"--seed", "+42", "--max-classes", "0", "--delta", "0"}, g), "");
  EXPECT_EQ(g.seed, 42);
  EXPECT_EQ(g.max_classes, 0u);
}

TEST(NumberFlags, AnIntTooWideForItsVariableIsStillRefused) {
  // Fits in 64 bits but not in an int: CLI11's own conversion refuses it.
  EXPECT_NE(parse({"--epochs", "99999999999"}).find("--epochs"), std::string::npos);
}

}  // namespace
