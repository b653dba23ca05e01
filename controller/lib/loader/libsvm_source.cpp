#include "loader/libsvm_source.h"

#include <algorithm>
#include <charconv>

#include "core/error.h"
#include "loader/csv.h"
#include "loader/text_input.h"

namespace dptrain::loader {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

void parse_libsvm_line(std::string_view line, LibsvmRow& row, const std::string& where) {
  row.entries.clear();
  const auto hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  std::size_t i = 0;
  auto token = [&]() -> std::string_view {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    return line.substr(start, i - start);
  };
  row.label = normalize_label(token());
  if (row.label.empty()) fail(ErrorKind::InvalidData, "missing label at " + where);
  if (row.label.find(':') != std::string_view::npos)
    fail(ErrorKind::InvalidData, "missing label at " + where + ": the line starts with \"" + std::string(row.label) + "\"",
         {}, "A LIBSVM line is \"label index:value index:value ...\".");
  std::uint64_t previous = 0;
  for (std::string_view t = token(); !t.empty(); t = token()) {
    const auto colon = t.find(':');
    if (colon == std::string_view::npos)
      fail(ErrorKind::InvalidData, "bad LIBSVM pair \"" + std::string(t) + "\" at " + where, {},
           "Features are written index:value with a 1-based index.");
    const std::string_view key = t.substr(0, colon), val = t.substr(colon + 1);
    if (key == "qid") continue;
    std::uint64_t index = 0;
    const auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
    if (ec != std::errc() || ptr != key.data() + key.size() || index == 0 || index > UINT32_MAX)
      fail(ErrorKind::InvalidData, "bad feature index \"" + std::string(key) + "\" at " + where, {},
           "Indices are 1-based positive integers.");
    if (index <= previous)
      fail(ErrorKind::InvalidData,
           "feature index " + std::to_string(index) + " at " + where +
               (index == previous ? " appears twice" : " is not in increasing order"),
           {}, "Write each index once, in increasing order.");
    previous = index;
    const auto v = parse_number(val);
    if (!v)
      fail(ErrorKind::InvalidData, "bad number \"" + std::string(val) + "\" for feature " + std::string(key) + " at " + where);
    row.entries.push_back(LibsvmEntry{static_cast<std::uint32_t>(index - 1), *v});
  }
}

LibsvmSource::LibsvmSource(const std::string& train_file, const std::optional<std::string>& test_file,
                           const RowSplitter& splitter, std::size_t dims, std::size_t max_features)
    : max_features_(max_features) {
  if (test_file && splitter.active())
    fail(ErrorKind::InvalidParameter, "give either a test file or a test-row list, not both");
  if (dims > max_features)
    refuse_feature_count("--dims " + std::to_string(dims) + " exceeds the limit of " + std::to_string(max_features) +
                         " features");
  parts_[0].file = train_file;
  parts_[1].file = test_file ? *test_file : (splitter.active() ? train_file : std::string());
  const std::uint64_t n = read_file(train_file, false, splitter);
  splitter.check_complete(n, train_file);
  if (test_file) read_file(*test_file, true, splitter);
  if (parts_[0].label.empty()) fail(ErrorKind::InvalidData, "no training rows in \"" + train_file + "\"");
  if (dims == 0) {
    dims_ = max_index_;
  } else {
    if (max_index_ > dims)
      fail(ErrorKind::InvalidData,
           "feature index " + std::to_string(max_index_) + " exceeds --dims " + std::to_string(dims), {},
           "Raise --dims or omit it (default: the largest index in the files).");
    dims_ = dims;
  }
  if (dims_ == 0) fail(ErrorKind::InvalidData, "the LIBSVM input has no features");
  if (dims == 0)
    notices_.push_back("feature count " + std::to_string(dims_) +
                       " = the largest index in the files (pass --dims to fix it in advance)");
}

std::uint64_t LibsvmSource::read_file(const std::string& path, bool is_test_file, const RowSplitter& splitter) {
  LineReader in(path);
  std::string line;
  LibsvmRow row;
  std::uint64_t data_row = 0;
  while (in.next(line)) {
    std::size_t k = 0;
    while (k < line.size() && is_space(line[k])) ++k;
    if (k == line.size() || line[k] == '#') continue;
    parse_libsvm_line(line, row, file_line(path, in.line_number()));
    if (!row.entries.empty() && row.entries.back().index >= max_features_)
      refuse_feature_count("feature index " + std::to_string(row.entries.back().index + std::size_t{1}) + " at " +
                           file_line(path, in.line_number()) + " exceeds the limit of " +
                           std::to_string(max_features_) + " features");
    const Part p = is_test_file ? Part::Test : splitter.part_of(data_row);
    SparsePart& part = parts_[static_cast<int>(p)];
    part.entries.insert(part.entries.end(), row.entries.begin(), row.entries.end());
    part.start.push_back(part.entries.size());
    part.label.push_back(labels_.intern(row.label));
    part.origin.push_back(RowOrigin{data_row, in.line_number()});
    if (!row.entries.empty()) max_index_ = std::max<std::size_t>(max_index_, row.entries.back().index + 1);
    ++data_row;
  }
  return data_row;
}

void LibsvmSource::features(Part p, std::size_t i, double* out) const {
  const SparsePart& s = part(p);
  std::fill(out, out + dims_, 0.0);
  for (std::size_t k = s.start[i]; k < s.start[i + 1]; ++k) out[s.entries[k].index] = s.entries[k].value;
}

nlohmann::json LibsvmSource::describe() const {
  return {{"format", "libsvm"}, {"scaling", "none (values as given)"}, {"max_index", max_index_}};
}

}  // namespace dptrain::loader
