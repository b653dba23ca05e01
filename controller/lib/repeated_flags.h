// A flag given twice is a usage error. CLI11 (2.1) refuses a repeated
// single-valued option ("--epsilon 1 --epsilon 2") but lets a flag take the
// last of its repeats: `--json --json` or `--server --server` passed without
// a word, often the sign of an edited command line that lost something.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace dptrain::client {

// Every flag of `app` and its subcommands (at any depth), --help and
// --version aside, refuses a repeat (CLI::ArgumentMismatch, exit 2 in
// main.cpp). Options that take a list (--classes a --classes b, --missing,
// --categories) keep collecting their values.
void refuse_repeated_flags(CLI::App& app);

// CLI11's failure message, with the refusal of a repeated flag or option in
// words: "--json: given 2 times; give it once" (CLI11 said "At Most 1
// required but received 2").
std::string usage_error_message(const CLI::App* app, const CLI::Error& e);

}  // namespace dptrain::client
