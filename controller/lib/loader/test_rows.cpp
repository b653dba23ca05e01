#include "loader/test_rows.h"

#include <algorithm>
#include <charconv>

#include "core/error.h"
#include "loader/text_input.h"

namespace dptrain::loader {

std::vector<std::uint64_t> read_test_rows(const std::string& path) {
  LineReader in(path);
  std::vector<std::uint64_t> rows;
  std::string line;
  while (in.next(line)) {
    std::string_view s(line);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    if (s.empty() || s.front() == '#') continue;
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
      fail(ErrorKind::InvalidData,
           "bad row number \"" + std::string(s.substr(0, 40)) + "\" at " + file_line(path, in.line_number()), {},
           "A test-row list holds one 0-based data-row number per line.");
    rows.push_back(v);
  }
  std::sort(rows.begin(), rows.end());
  const auto dup = std::adjacent_find(rows.begin(), rows.end());
  if (dup != rows.end())
    fail(ErrorKind::InvalidData, "row " + std::to_string(*dup) + " is listed twice in \"" + path + "\"");
  if (rows.empty())
    fail(ErrorKind::InvalidData, "test-row list \"" + path + "\" is empty", {},
         "Omit --test-rows to load every row as training data.");
  return rows;
}

RowSplitter::RowSplitter(std::vector<std::uint64_t> test_rows, std::string list_path)
    : test_rows_(std::move(test_rows)), list_path_(std::move(list_path)), active_(true) {}

Part RowSplitter::part_of(std::uint64_t row) const {
  if (!active_) return Part::Train;
  return std::binary_search(test_rows_.begin(), test_rows_.end(), row) ? Part::Test : Part::Train;
}

void RowSplitter::check_complete(std::uint64_t rows, const std::string& data_path) const {
  if (active_ && !test_rows_.empty() && test_rows_.back() >= rows)
    fail(ErrorKind::InvalidData,
         "test-row list \"" + list_path_ + "\" names row " + std::to_string(test_rows_.back()) + ", but \"" +
             data_path + "\" has only " + std::to_string(rows) + " data rows",
         {}, "Row numbers are 0-based and count data rows only (no header, comment or blank lines).");
}

}  // namespace dptrain::loader
