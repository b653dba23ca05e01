// Flags whose value is a model name (train --name, tune --name, models
// rename --to): a name with a control character (a newline, ESC, ...) is
// refused while the command line is parsed, a usage error (exit status 2).
// Such a name breaks every listing that prints it (dptrain models, psql) and
// can carry terminal escape sequences; dp_train refuses it too (22023).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace dptrain::client {

// What is wrong with `name` as a model name, or "" if nothing: a C0 control
// character (0x00-0x1f), DEL (0x7f) or a C1 control character (U+0080-U+009F,
// in UTF-8 0xc2 0x80-0x9f) -- the characters the server refuses.
std::string model_name_problem(const std::string& name);

// The CLI11 check of such a flag: option->check(model_name_flag()).
CLI::Validator model_name_flag();

}  // namespace dptrain::client
