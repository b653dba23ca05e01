// The CLI shows the server's SQL-syntax hints in CLI syntax (issue: CLI hints
// use CLI flags). Inputs are hints the core and the glue really raise.
#include "cli_hints.h"

#include <gtest/gtest.h>

using dptrain::client::cli_syntax;

TEST(CliHints, NamedArgumentsBecomeFlags) {
  EXPECT_EQ(cli_syntax("Pass epochs => 1 or more."), "Pass --epochs 1 or more.");
  EXPECT_EQ(cli_syntax("Pass radius => R."), "Pass --radius R.");
  EXPECT_EQ(cli_syntax("The default is huber_h => 0.1."), "The default is --huber-h 0.1.");
  EXPECT_EQ(cli_syntax("Pass batch_size => 1 or more."), "Pass --batch-size 1 or more.");
  EXPECT_EQ(cli_syntax("Pass epsilon => ... (and delta => ... for (epsilon, delta)-DP)."),
            "Pass --epsilon ... (and --delta ... for (epsilon, delta)-DP).");
  EXPECT_EQ(cli_syntax("Use loss => 'logistic' or loss => 'huber_svm'."),
            "Use --loss logistic or --loss huber_svm.");
  EXPECT_EQ(cli_syntax("Use delta => 0 (or NULL) for pure epsilon-DP, typically delta < 1/n."),
            "Use --delta 0 (or NULL) for pure epsilon-DP, typically delta < 1/n.");
}

TEST(CliHints, BooleansBecomeSwitches) {
  EXPECT_EQ(cli_syntax("Drop averaging => true."), "Drop --averaging.");
  EXPECT_EQ(cli_syntax("Or pass intercept => false."), "Or pass --no-intercept.");
}

TEST(CliHints, ArraysBecomeCommaLists) {
  EXPECT_EQ(cli_syntax("Declare them: classes => ARRAY['no', 'yes']."), "Declare them: --classes no,yes.");
  EXPECT_EQ(cli_syntax("Pass classes => ARRAY[...]."), "Pass --classes ....");
  // separate columns are --columns in the CLI (--features names one array column)
  EXPECT_EQ(cli_syntax("Or separate columns as an array: features => ARRAY['a', 'b'] (docs/encoding.md)."),
            "Or separate columns as an array: --columns a,b (docs/encoding.md).");
  EXPECT_EQ(cli_syntax("E.g. features => 'x'."), "E.g. --features x.");
}

TEST(CliHints, JsonStaysShellQuoted) {
  EXPECT_EQ(cli_syntax(R"(Use options => '{"accountant": "basic"}'.)"), R"(Use --options '{"accountant": "basic"}'.)");
}

TEST(CliHints, SourceIsTheTableFlag) {
  EXPECT_EQ(cli_syntax("Qualify it: source => 'my_schema.my_table'."), "Qualify it: --table my_schema.my_table.");
}

TEST(CliHints, BareArgumentNamesWithUnderscores) {
  EXPECT_EQ(cli_syntax("Drop learning_rate (the step is min(1/beta, 1/(lambda t))), or use schedule => 'constant'."),
            "Drop --learning-rate (the step is min(1/beta, 1/(lambda t))), or use --schedule constant.");
  EXPECT_EQ(cli_syntax("The default is huber_h => 0.1."), "The default is --huber-h 0.1.");
}

TEST(CliHints, FunctionsBecomeCommands) {
  EXPECT_EQ(cli_syntax("Train with dp_train (or dptrain train)."), "Train with dptrain train.");
  EXPECT_EQ(cli_syntax("Use dp_evaluate with a stored model."), "Use dptrain eval with a stored model.");
  EXPECT_EQ(cli_syntax("Without read access, train with dp_train (dptrain train --server)."),
            "Without read access, train with dptrain train --server.");
}

TEST(CliHints, OtherTextIsUntouched) {
  const std::string prose = "Ask the table owner for SELECT on it; dptrain.usable_row(x) and lambda > 0 stay.";
  EXPECT_EQ(cli_syntax(prose), prose);
  EXPECT_EQ(cli_syntax(""), "");
}
