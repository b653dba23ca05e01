// Flags whose value is a JSON object (--options, --bounds, --categories,
// --grid): a malformed one is refused while the command line is parsed,
// naming the flag and what was wrong ("--options: not valid JSON: parse error
// at line 1, column 2: ..."), instead of a bare parser message later.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace dptrain::client {

// What is wrong with `text` as a JSON object, or "" if nothing.
std::string json_object_problem(const std::string& text);

// The CLI11 check of such a flag: option->check(json_object_flag()). With
// empty_means_default, '' is accepted as "not given" (--grid '' = the lists of
// --lambdas, --epochs, --batch-sizes, as before the check).
CLI::Validator json_object_flag(bool empty_means_default = false);

}  // namespace dptrain::client
