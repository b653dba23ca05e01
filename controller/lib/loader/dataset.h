// The whole `dptrain load` pipeline without the database: read the input
// (CSV / scikit-learn CSV / LIBSVM / IDX), split it into train and test
// rows, encode the labels, then per row: features -> optional random
// projection -> row normalization (||x||_2 <= 1). cmd_load.cpp streams the
// rows of a Dataset into the table with COPY.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/preprocessing/random_projection.h"
#include "core/preprocessing/row_normalization.h"
#include "loader/column_schema.h"
#include "loader/csv_table.h"
#include "loader/feature_limit.h"
#include "loader/feature_source.h"
#include "loader/labels.h"

namespace dptrain::loader {

enum class Format { Csv, Sklearn, Libsvm, Idx };
Format parse_format(const std::string& name);  // csv | sklearn | libsvm | idx
const char* format_name(Format f);
// By name ("...-ubyte" -> IDX) and by content (first line "label i:v ..." ->
// LIBSVM); CSV otherwise (a scikit-learn header is then detected by csv_table).
Format infer_format(const std::string& path);

struct LoadOptions {
  std::string file;
  std::optional<Format> format;  // nullopt: infer_format
  std::optional<std::string> test_file;
  std::optional<std::string> test_rows;  // test-row list
  std::string labels_file, test_labels_file;  // IDX labels (default: derived from the image file names)
  CsvOptions csv;
  SchemaOptions schema;
  LabelOptions labels;
  std::size_t libsvm_dims = 0;  // 0: the largest index
  std::size_t max_features = kDefaultMaxFeatures;  // widest row built (--max-features)
  preprocessing::RowNormalization normalize = preprocessing::RowNormalization::UnitL2;
  std::size_t project = 0;  // target dimension k of a random projection; 0 = none
  std::optional<std::uint64_t> projection_seed;
  // Scoring a raw file with a stored load spec (load_spec.h): the label set
  // is this list (the training classes of the spec), not the file's rows,
  // and every row's label must be one of them (or, one-vs-rest, negative).
  std::optional<std::vector<std::string>> label_classes;
  // The label_classes are the data set's public label set (--classes, or
  // IDX's digits 0..9), not read from its rows: recorded in the spec as
  // "classes_public", so that dp_train uses them when the caller declares
  // none (docs/loading-data.md, "Public classes").
  bool public_classes = false;
};

// The documented label set of the IDX data sets dptrain loads (MNIST,
// Fashion-MNIST: the digits 0..9), public and independent of the rows.
std::vector<std::string> idx_public_classes();

class Dataset {
 public:
  // Reads and checks everything; throws dptrain::Error with file:line on bad input.
  explicit Dataset(const LoadOptions& options);

  Format format() const { return format_; }
  std::size_t input_dims() const { return source_->dims(); }
  std::size_t dims() const { return projection_ ? projection_->output_dim() : source_->dims(); }
  std::size_t rows(Part p) const { return source_->rows(p); }
  bool has_test() const { return !source_->file(Part::Test).empty(); }

  // Writes the dims() features of row i of part p into x; returns its label.
  const LabelValue& row(Part p, std::size_t i, double* x);
  std::int64_t id(Part p, std::size_t i) const { return static_cast<std::int64_t>(source_->origin(p, i).row); }

  const LabelEncoder& labels() const { return *labels_; }
  const FeatureSource& source() const { return *source_; }
  const preprocessing::RandomProjection* projection() const { return projection_.get(); }
  preprocessing::RowNormalization normalization() const { return normalize_; }
  std::vector<std::string> notices() const;
  // Everything needed to reproduce the preprocessing (the table comment and
  // the load spec registered for the table, docs/loading-data.md).
  nlohmann::json metadata() const;

 private:
  void check_labels(Part p) const;

  Format format_;
  std::unique_ptr<FeatureSource> source_;
  std::unique_ptr<LabelEncoder> labels_;
  std::unique_ptr<preprocessing::RandomProjection> projection_;
  bool projection_seed_drawn_ = false;
  preprocessing::RowNormalization normalize_;
  LoadOptions options_;  // as given (an IDX load: with its public classes): the reading options go into metadata()
  Dictionary label_dict_;  // with label_classes: the file's labels, then those classes
  std::vector<double> scratch_;
};

// Per-part facts gathered while the rows stream out (the summary line and
// the fingerprints of shared/data/README.md).
struct PartStats {
  std::uint64_t rows = 0;
  std::uint64_t positives = 0;  // boolean labels
  double feature_sum = 0;       // sum of every feature of every row
  double max_norm = 0;          // largest row norm after normalization
  void add(const double* x, std::size_t n, const LabelValue& y);
};

}  // namespace dptrain::loader
