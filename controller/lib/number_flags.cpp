#include "number_flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace dptrain::client {
namespace {

// The CLI11 type name of an option without the descriptions of its validators.
std::string base_type(const CLI::Option& o) {
  const std::string t = o.get_type_name();
  return t.substr(0, t.find(':'));
}

std::string integer_problem(std::string& text, bool is_unsigned) {
  static const std::regex decimal(R"([+-]?[0-9]+)");
  if (!std::regex_match(text, decimal))
    return text + " is not " + (is_unsigned ? "a non-negative decimal integer" : "a decimal integer");
  const bool negative = text[0] == '-';
  std::string digits = text.substr(text[0] == '+' || negative ? 1 : 0);
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));  // "010" is ten, not octal 8
  if (is_unsigned && negative && digits != "0") return text + " is not a non-negative decimal integer";
  const std::string range = is_unsigned ? "0 to 18446744073709551615" : "-9223372036854775808 to 9223372036854775807";
  errno = 0;
  if (is_unsigned)
    (void)std::strtoull(digits.c_str(), nullptr, 10);
  else
    (void)std::strtoll((negative ? "-" + digits : digits).c_str(), nullptr, 10);
  if (errno == ERANGE) return text + " is out of range (an integer from " + range + ")";
  text = (negative && !is_unsigned ? "-" : "") + digits;
  return "";
}

// A decimal number as the docs write them: [sign] digits [. digits] or
// [sign] . digits, then [e [sign] digits]; nothing around it. strtod also
// reads C99 hexadecimal floats (--epsilon 0x10 was 16), "inf", "nan" and
// leading white space; none of them is a value a user means to pass.
std::string float_problem(const std::string& text) {
  static const std::regex decimal(R"([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)");
  static const std::regex non_finite(R"([+-]?(inf|infinity|nan))", std::regex::icase);
  if (std::regex_match(text, non_finite)) return text + " is not a finite number";
  if (!std::regex_match(text, decimal)) return text + " is not a decimal number (e.g. 16, 0.5, .5 or 1e-5)";
  errno = 0;
  const double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v)) return text + " is out of range (a magnitude of at most about 1.8e308)";
  // A non-zero digit before the exponent: not 0, underflowed.
  if (v == 0 && text.find_first_of("123456789") < text.find_first_of("eE"))
    return text + " is too close to 0 (it would read as 0)";
  return "";
}

}  // namespace

std::string number_flag_problem(std::string& text, const std::string& type) {
  if (type == "INT") return integer_problem(text, false);
  if (type == "UINT") return integer_problem(text, true);
  if (type == "FLOAT") return float_problem(text);
  return "";
}

void check_number_flags(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    const std::string type = base_type(*o);
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    o->transform(CLI::Validator([type](std::string& text) { return number_flag_problem(text, type); }, "", ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_number_flags(*sub);
}

}  // namespace dptrain::client
