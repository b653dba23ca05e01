#include "loader/csv_table.h"

#include <algorithm>
#include <charconv>

#include "core/error.h"
#include "loader/text_input.h"

namespace dptrain::loader {
namespace {

bool is_count(const std::string& s, std::uint64_t* value) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return false;
  if (value) *value = v;
  return true;
}

std::string join(const std::vector<std::string>& v, std::size_t max_items = 12) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max_items; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > max_items) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return s;
}

// Content lines of one file, with a little look-ahead for header detection.
class ContentLines {
 public:
  ContentLines(const std::string& path, const CsvDialect& d) : in_(path), dialect_(d) {}

  // Fields of the next content line (comment and blank lines skipped).
  bool next(std::vector<std::string_view>& fields) {
    if (!pending_.empty()) {
      current_ = std::move(pending_.front());
      current_line_ = pending_line_.front();
      pending_.erase(pending_.begin());
      pending_line_.erase(pending_line_.begin());
    } else if (!read(current_, current_line_)) {
      return false;
    }
    split_fields(current_, dialect_, fields, scratch_, where());
    return true;
  }

  // Fields of the k-th content line ahead (0 = the next one), as strings.
  std::optional<std::vector<std::string>> peek(std::size_t k) {
    while (pending_.size() <= k) {
      std::string line;
      std::uint64_t number;
      if (!read(line, number)) return std::nullopt;
      pending_.push_back(std::move(line));
      pending_line_.push_back(number);
    }
    std::vector<std::string_view> f;
    std::deque<std::string> scratch;
    split_fields(pending_[k], dialect_, f, scratch, file_line(in_.path(), pending_line_[k]));
    return std::vector<std::string>(f.begin(), f.end());
  }

  std::string where() const { return file_line(in_.path(), current_line_); }
  std::uint64_t line() const { return current_line_; }
  const std::string& path() const { return in_.path(); }

 private:
  bool read(std::string& line, std::uint64_t& number) {
    while (in_.next(line)) {
      if (is_skipped_line(line, dialect_)) continue;
      number = in_.line_number();
      return true;
    }
    return false;
  }

  LineReader in_;
  CsvDialect dialect_;
  std::string current_;
  std::uint64_t current_line_ = 0;
  std::vector<std::string> pending_;
  std::vector<std::uint64_t> pending_line_;
  std::deque<std::string> scratch_;
};

std::size_t resolve_label(const std::vector<std::string>& names, const std::string& label) {
  if (label.empty()) return names.size() - 1;
  const auto it = std::find(names.begin(), names.end(), label);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  std::uint64_t number = 0;
  if (is_count(label, &number) && number >= 1 && number <= names.size()) return number - 1;
  fail(ErrorKind::InvalidParameter, "unknown label column \"" + label + "\"", "Columns: " + join(names) + ".",
       "Give --label a column name or a 1-based column number (default: the last column).");
}

class CsvReader {
 public:
  CsvReader(const CsvOptions& o, const RowSplitter& s) : o_(o), splitter_(s) {}

  CsvTable read(const std::string& train_file, const std::optional<std::string>& test_file) {
    t_.parts[0].file = train_file;
    t_.parts[1].file = test_file ? *test_file : (splitter_.active() ? train_file : std::string());
    const std::uint64_t rows = read_file(train_file, /*is_test_file=*/false);
    splitter_.check_complete(rows, train_file);
    if (test_file) read_file(*test_file, /*is_test_file=*/true);
    if (t_.parts[0].rows() == 0)
      fail(ErrorKind::InvalidData, "no training rows in \"" + train_file + "\"",
           t_.parts[0].dropped ? std::to_string(t_.parts[0].dropped) + " rows were dropped for missing values."
                               : std::string(),
           {});
    return std::move(t_);
  }

 private:
  HeaderKind header_of(ContentLines& in) {
    const auto first = in.peek(0);
    if (!first) return HeaderKind::None;
    if (o_.sklearn_header) {
      std::uint64_t nfeat = 0;
      if (first->size() < 3 || !is_count((*first)[0], nullptr) || !is_count((*first)[1], &nfeat))
        fail(ErrorKind::InvalidData, "\"" + in.path() + "\" does not start with a scikit-learn header", {},
             "Expected \"n_samples,n_features,class name,...\" on the first line.");
      return HeaderKind::Sklearn;
    }
    if (o_.header) return *o_.header ? HeaderKind::Names : HeaderKind::None;
    const auto second = in.peek(1);
    return detect_header(*first, second ? &*second : nullptr);
  }

  // Sets up columns from the train file's first line(s).
  void set_up_columns(ContentLines& in, HeaderKind header) {
    const auto first = in.peek(0);
    if (!first) fail(ErrorKind::InvalidData, "input file \"" + in.path() + "\" holds no data");
    t_.header = header;
    std::size_t ncols = first->size();
    if (header == HeaderKind::Sklearn) {
      std::uint64_t nfeat = 0;
      is_count((*first)[1], &nfeat);
      if (nfeat > o_.max_features)
        refuse_feature_count("\"" + in.path() + "\": its scikit-learn header declares " + std::to_string(nfeat) +
                             " features, more than the limit of " + std::to_string(o_.max_features));
      ncols = nfeat + 1;
      t_.sklearn_classes.assign(first->begin() + 2, first->end());
    }
    if (header == HeaderKind::Names) t_.file_header = *first;
    if (!o_.column_names.empty()) {
      if (o_.column_names.size() != ncols)
        fail(ErrorKind::InvalidParameter,
             "--columns names " + std::to_string(o_.column_names.size()) + " columns, but \"" + in.path() +
                 "\" has " + std::to_string(ncols),
             {}, "Name every column, the label included, in file order.");
      t_.names = o_.column_names;
    } else if (header == HeaderKind::Names) {
      t_.names = *first;
    } else {
      for (std::size_t i = 0; i < ncols; ++i) t_.names.push_back("c" + std::to_string(i + 1));
    }
    for (std::size_t i = 0; i < t_.names.size(); ++i) {
      if (t_.names[i].empty()) t_.names[i] = "c" + std::to_string(i + 1);
      for (std::size_t j = 0; j < i; ++j)
        if (t_.names[i] == t_.names[j])
          fail(ErrorKind::InvalidData, "column name \"" + t_.names[i] + "\" appears twice", {},
               "Give unique names with --columns.");
    }
    if (t_.names.size() < 2)
      fail(ErrorKind::InvalidData, "\"" + in.path() + "\" has a single column: no features besides the label", {},
           "Is the delimiter right? (--delimiter)");
    t_.label_column = resolve_label(t_.names, o_.label);
    for (std::size_t i = 0; i < t_.names.size(); ++i)
      if (i != t_.label_column) t_.feature_columns.push_back(i);
    t_.values.resize(t_.feature_columns.size());
  }

  void check_test_header(ContentLines& in, HeaderKind header) {
    if (header == HeaderKind::Names && t_.header == HeaderKind::Names && o_.column_names.empty()) {
      const auto first = in.peek(0);
      if (*first != t_.names)
        fail(ErrorKind::InvalidData, "the header of \"" + in.path() + "\" differs from the training file's",
             "Test: " + join(*first) + ". Train: " + join(t_.names) + ".",
             "Train and test files need the same columns in the same order.");
    }
    if (header == HeaderKind::Sklearn && t_.header == HeaderKind::Sklearn) {
      const auto first = in.peek(0);
      if (std::vector<std::string>(first->begin() + 2, first->end()) != t_.sklearn_classes)
        fail(ErrorKind::InvalidData, "the class names of \"" + in.path() + "\" differ from the training file's");
    }
  }

  bool is_missing(std::string_view v) const {
    if (v.empty()) return true;
    for (const auto& m : o_.missing)
      if (v == m) return true;
    return false;
  }

  std::string_view label_of(std::string_view cell, const std::string& where) {
    // Class indices name the classes only in scikit-learn's own label column, the last.
    if (t_.header != HeaderKind::Sklearn || t_.label_column + 1 != t_.names.size()) return normalize_label(cell);
    std::uint64_t k = 0;
    if (!is_count(std::string(cell), &k) || k >= t_.sklearn_classes.size())
      fail(ErrorKind::InvalidData,
           "unknown label \"" + std::string(cell) + "\" at " + where + ": not a class index of the header (0.." +
               std::to_string(t_.sklearn_classes.size() - 1) + ")",
           "Class names: " + join(t_.sklearn_classes) + ".", {});
    return t_.sklearn_classes[k];
  }

  // Returns the number of data rows of the file (dropped rows included).
  std::uint64_t read_file(const std::string& path, bool is_test_file) {
    ContentLines in(path, o_.dialect);
    const HeaderKind header = header_of(in);
    std::uint64_t declared_rows = 0;
    if (!is_test_file) set_up_columns(in, header);
    else check_test_header(in, header);
    if (header == HeaderKind::Sklearn) is_count((*in.peek(0))[0], &declared_rows);

    std::vector<std::string_view> fields;
    if (header != HeaderKind::None) in.next(fields);  // consume the header line
    const std::size_t ncols = t_.names.size();
    std::uint64_t row = 0;
    while (in.next(fields)) {
      const std::uint64_t data_row = row++;
      if (fields.size() != ncols)
        fail(ErrorKind::InvalidData,
             "ragged row at " + in.where() + ": " + std::to_string(fields.size()) + " fields, expected " +
                 std::to_string(ncols),
             {}, "Every row needs one value per column (delimiter '" + std::string(1, o_.dialect.delimiter) +
                     "'); write a missing value as ? or leave the field empty.");
      const Part p = is_test_file ? Part::Test : splitter_.part_of(data_row);
      CsvPart& part = t_.parts[static_cast<int>(p)];
      bool any_missing = false;
      for (const auto& f : fields) any_missing = any_missing || is_missing(f);
      if (any_missing && o_.drop_missing) {
        ++part.dropped;
        continue;
      }
      if (is_missing(fields[t_.label_column])) {
        // The default label, the last column, unnamed in the header and empty:
        // a delimiter at the end of every line, not a row to drop.
        if (o_.label.empty() && t_.label_column + 1 == ncols && t_.header == HeaderKind::Names &&
            !t_.file_header.empty() && t_.file_header.back().empty())
          fail(ErrorKind::InvalidData, "missing label at " + in.where() + ": the last column is empty",
               "The label is the last column unless --label names another; does every line end with the delimiter?",
               "Pass --label with the label column's name or 1-based number (" + std::to_string(ncols - 1) +
                   " for the column before the empty one).");
        fail(ErrorKind::InvalidData, "missing label at " + in.where(), {},
             "Remove the row, or pass --drop-missing to skip rows with missing values.");
      }
      for (std::size_t f = 0; f < t_.feature_columns.size(); ++f) {
        const std::string_view v = fields[t_.feature_columns[f]];
        part.codes.push_back(is_missing(v) ? kMissing : t_.values[f].intern(v));
      }
      part.label.push_back(t_.labels.intern(label_of(fields[t_.label_column], in.where())));
      part.origin.push_back(RowOrigin{data_row, in.line()});
    }
    if (header == HeaderKind::Sklearn && declared_rows != row)
      fail(ErrorKind::InvalidData,
           "\"" + path + "\" declares " + std::to_string(declared_rows) + " rows in its header but holds " +
               std::to_string(row),
           {}, "Is the file truncated?");
    return row;
  }

  const CsvOptions& o_;
  const RowSplitter& splitter_;
  CsvTable t_;
};

}  // namespace

HeaderKind detect_header(const std::vector<std::string>& first, const std::vector<std::string>* second) {
  // scikit-learn: "n_samples,n_features,name_0,name_1,..." (at least two
  // classes), then rows of n_features values and a class index.
  std::uint64_t nfeat = 0, klass = 0;
  if (first.size() >= 4 && is_count(first[0], nullptr) && is_count(first[1], &nfeat) && second &&
      second->size() == nfeat + 1 && is_count(second->back(), &klass) && klass < first.size() - 2 &&
      std::none_of(first.begin() + 2, first.end(), [](const std::string& s) { return parse_number(s).has_value(); }))
    return HeaderKind::Sklearn;
  // A delimiter at the end of every line (spreadsheet exports) leaves an
  // empty last name in the header as in the rows: still a header.
  const bool trailing_delimiter =
      first.size() > 1 && first.back().empty() && second && second->size() == first.size() && second->back().empty();
  const bool all_text = std::all_of(first.begin(), first.end() - (trailing_delimiter ? 1 : 0),
                                    [](const std::string& s) { return !s.empty() && !parse_number(s); });
  if (!all_text || !second || second->size() != first.size()) return HeaderKind::None;
  const bool has_number =
      std::any_of(second->begin(), second->end(), [](const std::string& s) { return parse_number(s).has_value(); });
  return has_number ? HeaderKind::Names : HeaderKind::None;
}

CsvTable read_csv(const std::string& train_file, const std::optional<std::string>& test_file,
                  const RowSplitter& splitter, const CsvOptions& options) {
  if (test_file && splitter.active())
    fail(ErrorKind::InvalidParameter, "give either a test file or a test-row list, not both");
  return CsvReader(options, splitter).read(train_file, test_file);
}

}  // namespace dptrain::loader
