// Formatting of numbers in the accountants' error details ("delta = 1e-12", not "0.000000").
#pragma once

#include <cstdio>
#include <string>

namespace dptrain::privacy {

inline std::string show(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

}  // namespace dptrain::privacy
