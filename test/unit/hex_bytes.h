// Bytes as lower-case hex, two digits each: how the tests of dptrain's binary
// formats (COPY BINARY rows, float8[] passes) compare bytes to the layouts of
// the PostgreSQL manual.
#pragma once

#include <string>

namespace dptrain::testing {

inline std::string hex_bytes(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

}  // namespace dptrain::testing
