// Train/test assignment of data rows: either a separate test file, or a list
// of 0-based data-row numbers (the seeded splits in shared/data/splits/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dptrain::loader {

enum class Part { Train = 0, Test = 1 };

// Reads a test-row list (plain or gzip, one non-negative integer per line;
// blank lines and lines starting with '#' are ignored). Returns the numbers
// sorted; throws dptrain::Error(InvalidData) on a malformed line or a
// duplicate number.
std::vector<std::uint64_t> read_test_rows(const std::string& path);

// Decides the part of each data row of one file, in increasing row order.
class RowSplitter {
 public:
  RowSplitter() = default;  // no list: every row is training
  RowSplitter(std::vector<std::uint64_t> test_rows, std::string list_path);

  bool active() const { return active_; }
  Part part_of(std::uint64_t row) const;
  // Throws if the list names a row beyond the `rows` rows of `data_path`.
  void check_complete(std::uint64_t rows, const std::string& data_path) const;
  std::size_t listed() const { return test_rows_.size(); }

 private:
  std::vector<std::uint64_t> test_rows_;
  std::string list_path_;
  bool active_ = false;
};

}  // namespace dptrain::loader
