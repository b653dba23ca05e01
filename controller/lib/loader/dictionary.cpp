#include "loader/dictionary.h"

#include "core/error.h"

namespace dptrain::loader {

std::uint32_t Dictionary::intern(std::string_view s) {
  const auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  if (values_.size() >= kMissing - 1)
    fail(ErrorKind::ProgramLimit, "too many distinct values in one column");
  const auto code = static_cast<std::uint32_t>(values_.size());
  const std::string& stored = values_.emplace_back(s);
  index_.emplace(std::string_view(stored), code);
  return code;
}

std::uint32_t Dictionary::find(std::string_view s) const {
  const auto it = index_.find(s);
  return it == index_.end() ? kMissing : it->second;
}

}  // namespace dptrain::loader
