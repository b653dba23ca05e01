// Distinct strings of one column, each stored once and numbered in order of
// first appearance. Rows then hold 4-byte codes instead of strings, which
// keeps KDD Cup's 494,021 x 42 cells at ~80 MB.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dptrain::loader {

// The code of a missing cell ("?" in Adult, or an empty field).
inline constexpr std::uint32_t kMissing = UINT32_MAX;

class Dictionary {
 public:
  Dictionary() = default;
  Dictionary(const Dictionary&) = delete;  // index_ holds views into values_
  Dictionary& operator=(const Dictionary&) = delete;
  Dictionary(Dictionary&&) = default;
  Dictionary& operator=(Dictionary&&) = default;

  std::uint32_t intern(std::string_view s);
  // kMissing if absent.
  std::uint32_t find(std::string_view s) const;
  const std::string& value(std::uint32_t code) const { return values_[code]; }
  std::size_t size() const { return values_.size(); }

 private:
  std::deque<std::string> values_;  // a deque never moves its elements
  std::unordered_map<std::string_view, std::uint32_t> index_;
};

// Where a row came from: its 0-based data-row number in its file (what
// split files list; header, comment and blank lines are not counted) and its
// 1-based line number (for error messages).
struct RowOrigin {
  std::uint64_t row = 0;
  std::uint64_t line = 0;
};

}  // namespace dptrain::loader
