#include "core/privacy/budget_text.h"

#include <cstdio>
#include <cstdlib>

namespace dptrain::privacy {

std::string budget_text(const std::string& exact) {
  if (exact.size() <= kBudgetTextExactLength) return exact;
  // short_number's "%.*g" (parameter_checks.h), in long double: the numeric
  // of float8's largest value (15 digits: 179769313486232 and 294 zeros) is
  // beyond a double and read as inf.
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.15Lg", std::strtold(exact.c_str(), nullptr));
  return buf;
}

}  // namespace dptrain::privacy
