// Numeric flags are read exactly or refused. CLI11 (2.1) converts with
// strtoll/strtoull/strtold without looking at errno: `--seed
// 99999999999999999999` became INT64_MAX, `--max-classes -1` wrapped to
// 2^64 - 1, `--epochs 010` was octal 8 and `--delta 1e-400` silently 0.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace dptrain::client {

// What is wrong with `text` as a value of a CLI11 option of type `type`
// ("INT", "UINT" or "FLOAT", CLI11's type names), or "" if nothing. A
// decimal integer may have leading zeros (decimal, not octal: they are
// dropped from `text`); hexadecimal is refused, as is a number that does not
// fit in 64 bits, a negative UINT, a FLOAT that is not decimal ("0x10",
// "inf", "nan", " 1", "1,5": strtod read the first four), out of range or
// not 0 but would read as 0.
std::string number_flag_problem(std::string& text, const std::string& type);

// Adds that check to every numeric option of `app` and its subcommands (at
// any depth): a refused value ends the parse with CLI::ValidationError,
// "--seed: 99999999999999999999 is out of range ...", exit code non-zero.
void check_number_flags(CLI::App& app);

}  // namespace dptrain::client
