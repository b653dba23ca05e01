// "a, b, c": names listed in messages and help texts.
#pragma once

#include <string>
#include <vector>

namespace dptrain {

inline std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string s;
  for (const std::string& item : items) s += (s.empty() ? "" : separator) + item;
  return s;
}

}  // namespace dptrain
