// Reading delimited text files (CSV with or without a header, UCI files like
// Adult and KDD Cup, scikit-learn's bundled CSVs) into dictionary-encoded
// columns. No interpretation of the values yet: column_schema.h decides
// numeric vs categorical afterwards, from the train and test rows together.
//
// scikit-learn's files (breast_cancer.csv, iris.csv, wine_data.csv) start
// with "n_samples,n_features,class name 0,class name 1,...", and their last
// column is the class index; such a header is recognized and the labels
// become the class names.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "loader/csv.h"
#include "loader/dictionary.h"
#include "loader/feature_limit.h"
#include "loader/test_rows.h"

namespace dptrain::loader {

enum class HeaderKind { None, Names, Sklearn };

struct CsvOptions {
  CsvDialect dialect;
  std::optional<bool> header;             // nullopt: detect (see detect_header)
  bool sklearn_header = false;            // the first line must be a scikit-learn header
  std::vector<std::string> column_names;  // --columns: names for every column
  std::string label;                      // column name or 1-based number; empty: the last column
  std::vector<std::string> missing = {"?"};  // markers of a missing cell (an empty cell is missing too)
  bool drop_missing = false;              // skip rows holding a missing cell
  std::size_t max_features = kDefaultMaxFeatures;  // a scikit-learn header claiming more is refused
};

struct CsvPart {
  std::string file;
  std::vector<std::uint32_t> codes;  // rows x feature_columns.size(), row-major; kMissing if missing
  std::vector<std::uint32_t> label;  // codes into CsvTable::labels
  std::vector<RowOrigin> origin;
  std::uint64_t dropped = 0;
  std::size_t rows() const { return label.size(); }
};

struct CsvTable {
  std::vector<std::string> names;              // every column, label included
  std::size_t label_column = 0;                // index into names
  std::vector<std::size_t> feature_columns;    // indices into names, in file order
  std::vector<Dictionary> values;              // per feature column, shared by both parts
  Dictionary labels;                           // normalized labels (sklearn: class names)
  std::array<CsvPart, 2> parts;                // [Train], [Test]
  HeaderKind header = HeaderKind::None;
  std::vector<std::string> sklearn_classes;
  std::vector<std::string> file_header;        // the header line's own names (header Names), before --columns

  const CsvPart& part(Part p) const { return parts[static_cast<int>(p)]; }
  std::size_t width() const { return feature_columns.size(); }
};

// Heuristic header detection on the first two content lines: the first is a
// header if none of its fields is a number while the second line has at
// least one number in a column of the same width. (A file whose values are
// all text cannot be told apart: pass --header.)
HeaderKind detect_header(const std::vector<std::string>& first, const std::vector<std::string>* second);

// Reads `train_file` (and `test_file` if given). With an active `splitter`
// the rows of `train_file` are divided by data-row number instead.
CsvTable read_csv(const std::string& train_file, const std::optional<std::string>& test_file,
                  const RowSplitter& splitter, const CsvOptions& options);

}  // namespace dptrain::loader
