#include "loader/dataset.h"

#include <Eigen/Core>
#include <cmath>

#include "core/error.h"
#include "core/preprocessing/load_spec.h"
#include "core/privacy/random_source.h"
#include "loader/csv_source.h"
#include "loader/idx_source.h"
#include "loader/libsvm_source.h"
#include "loader/text_input.h"

namespace dptrain::loader {
namespace {

bool looks_like_libsvm(const std::string& line) {
  // "label idx:value ..." with at least one pair and every later token a pair.
  std::size_t i = 0, tokens = 0;
  bool all_pairs = true;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size() || line[i] == '#') break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    const std::string tok = line.substr(start, i - start);
    if (tokens++ == 0) {
      if (tok.find(':') != std::string::npos || tok.find(',') != std::string::npos) return false;
      continue;
    }
    const auto colon = tok.find(':');
    const std::string key = colon == std::string::npos ? std::string() : tok.substr(0, colon);
    all_pairs = all_pairs && !key.empty() && (key == "qid" || key.find_first_not_of("0123456789") == std::string::npos);
  }
  return tokens >= 2 && all_pairs;
}

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "csv") return Format::Csv;
  if (name == "sklearn") return Format::Sklearn;
  if (name == "libsvm" || name == "svmlight") return Format::Libsvm;
  if (name == "idx") return Format::Idx;
  fail(ErrorKind::InvalidParameter, "unknown input format \"" + name + "\"", {},
       "Use csv (also UCI files), sklearn (scikit-learn's bundled CSVs), libsvm or idx.");
}

const char* format_name(Format f) {
  switch (f) {
    case Format::Csv: return "csv";
    case Format::Sklearn: return "sklearn";
    case Format::Libsvm: return "libsvm";
    case Format::Idx: return "idx";
  }
  return "?";
}

Format infer_format(const std::string& path) {
  if (path.find("-ubyte") != std::string::npos || path.find(".idx") != std::string::npos) return Format::Idx;
  LineReader in(path);
  std::string line;
  while (in.next(line)) {
    std::size_t k = 0;
    while (k < line.size() && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r')) ++k;
    if (k == line.size() || line[k] == '#' || line[k] == '|') continue;
    return looks_like_libsvm(line) ? Format::Libsvm : Format::Csv;
  }
  return Format::Csv;
}

namespace {

// The options that apply to some input formats only, refused for the others.
void check_format_options(Format format, const LoadOptions& o) {
  const bool csv_like = format == Format::Csv || format == Format::Sklearn;
  if (!csv_like && (!o.csv.label.empty() || !o.csv.column_names.empty()))
    fail(ErrorKind::InvalidParameter, "--label and --columns apply to CSV input only",
         std::string("The input is ") + format_name(format) + ", whose label is fixed by the format.");
  if (!csv_like && (!o.schema.bounds.empty() || !o.schema.categories.empty() || !o.schema.numeric.empty() ||
                    !o.schema.categorical.empty()))
    fail(ErrorKind::InvalidParameter, "--bounds, --categories, --numeric and --categorical apply to CSV input only",
         std::string("The input is ") + format_name(format) + ".",
         format == Format::Idx ? "IDX pixels are always scaled by 1/255." : "LIBSVM values are used as given.");
  if (format != Format::Idx && (!o.labels_file.empty() || !o.test_labels_file.empty()))
    fail(ErrorKind::InvalidParameter, "--labels-file applies to IDX input only");
}

// The reader of the input files in `format` (a CSV file with scikit-learn's
// header turns *format into Sklearn).
std::unique_ptr<FeatureSource> open_source(Format* format, const LoadOptions& o, const RowSplitter& splitter) {
  switch (*format) {
    case Format::Csv:
    case Format::Sklearn: {
      CsvOptions csv = o.csv;
      csv.sklearn_header = *format == Format::Sklearn;
      csv.max_features = o.max_features;
      auto source = std::make_unique<CsvSource>(o.file, o.test_file, splitter, csv, o.schema);
      if (source->table().header == HeaderKind::Sklearn) *format = Format::Sklearn;
      return source;
    }
    case Format::Libsvm:
      return std::make_unique<LibsvmSource>(o.file, o.test_file, splitter, o.libsvm_dims, o.max_features);
    case Format::Idx:
      return std::make_unique<IdxSource>(o.file, o.labels_file, o.test_file, o.test_labels_file, splitter,
                                         o.max_features);
  }
  return nullptr;
}

// --project K reduces the input's d features (docs/loading-data.md, step 4):
// K <= d, and the K x d matrix within RandomProjection::kMaxEntries, both
// refused before the matrix is drawn.
void check_projection(std::size_t k, std::size_t d) {
  if (k > d)
    fail(ErrorKind::InvalidParameter,
         "--project " + std::to_string(k) + " exceeds the input's " + std::to_string(d) + " features",
         "A random projection reduces the dimension: K is at most the number of input features.",
         "Give a smaller K (Bolt-on DP projects MNIST's 784 pixels to 50), or drop --project.");
  preprocessing::RandomProjection::check_shape(d, k);
}

}  // namespace

std::vector<std::string> idx_public_classes() {
  std::vector<std::string> c;
  for (int d = 0; d <= 9; ++d) c.push_back(std::to_string(d));
  return c;
}

Dataset::Dataset(const LoadOptions& given) : normalize_(given.normalize), options_(given) {
  format_ = given.format ? *given.format : infer_format(given.file);
  // An IDX load without declared classes gets the format's documented label
  // set (a public fact, like its pixel bounds 0..255); --positive keeps its
  // boolean label.
  if (format_ == Format::Idx && !options_.label_classes && !options_.labels.positive) {
    options_.label_classes = idx_public_classes();
    options_.public_classes = true;
  }
  const LoadOptions& o = options_;
  if (o.public_classes && o.labels.positive)
    fail(ErrorKind::InvalidParameter, "give --classes or --positive, not both",
         "--positive makes y boolean (classes false, true).");
  RowSplitter splitter;
  if (o.test_rows) {
    if (o.test_file) fail(ErrorKind::InvalidParameter, "give either --test-file or --test-rows, not both");
    splitter = RowSplitter(read_test_rows(*o.test_rows), *o.test_rows);
  }
  check_format_options(format_, o);
  source_ = open_source(&format_, o, splitter);

  // One-hot columns make the width known only now; nothing dense exists yet.
  if (source_->dims() > o.max_features)
    refuse_feature_count(std::to_string(source_->dims()) + " features exceed the limit of " +
                         std::to_string(o.max_features) + " (--max-features)");
  if (o.project > o.max_features)
    refuse_feature_count("--project " + std::to_string(o.project) + " exceeds the limit of " +
                         std::to_string(o.max_features) + " features");
  if (o.project > 0) check_projection(o.project, source_->dims());

  // Labels: the training rows define the set (or, scoring with a load spec,
  // the spec's classes); every test label must be one of them.
  const Dictionary& dict = source_->labels();
  std::vector<bool> in_train(dict.size(), false);
  if (o.label_classes) {
    // The file's codes stay the same (interned in code order); the spec's
    // classes are the "training" labels.
    for (std::uint32_t c = 0; c < dict.size(); ++c) label_dict_.intern(dict.value(c));
    for (const auto& l : *o.label_classes) label_dict_.intern(l);
    in_train.assign(label_dict_.size(), false);
    for (const auto& l : *o.label_classes) in_train[label_dict_.find(l)] = true;
    labels_ = std::make_unique<LabelEncoder>(label_dict_, in_train, o.labels);
    check_labels(Part::Train);
  } else {
    for (std::size_t i = 0; i < source_->rows(Part::Train); ++i) in_train[source_->label_code(Part::Train, i)] = true;
    labels_ = std::make_unique<LabelEncoder>(dict, in_train, o.labels);
  }
  check_labels(Part::Test);

  if (o.project > 0) {
    std::uint64_t seed;
    if (o.projection_seed) {
      seed = *o.projection_seed;
    } else {
      seed = privacy::RandomSource::secure().next_u64() >> 1;  // fits a bigint / JSON integer
      projection_seed_drawn_ = true;
    }
    projection_ = std::make_unique<preprocessing::RandomProjection>(source_->dims(), o.project, seed);
    scratch_.resize(source_->dims());
  } else if (o.projection_seed) {
    fail(ErrorKind::InvalidParameter, "--projection-seed needs --project K");
  }
}

void Dataset::check_labels(Part p) const {
  for (std::size_t i = 0; i < source_->rows(p); ++i) {
    const std::uint32_t c = source_->label_code(p, i);
    if (labels_->known(c)) continue;
    std::string train;
    for (const auto& l : labels_->classes()) train += (train.empty() ? "" : ", ") + l;
    if (options_.public_classes)
      fail(ErrorKind::InvalidData,
           "label \"" + source_->labels().value(c) + "\" at " + file_line(source_->file(p), source_->origin(p, i).line) +
               " is not one of the declared classes",
           "Declared classes: " + train + ".",
           "Declare the data set's label set with --classes (comma-separated).");
    fail(ErrorKind::InvalidData,
         "unknown label \"" + source_->labels().value(c) + "\" at " +
             file_line(source_->file(p), source_->origin(p, i).line) + ": no training row has it",
         "Training labels: " + train + ".",
         "Test labels must match the training labels (a trailing '.' is ignored); for a one-vs-rest binary "
         "task pass --positive VALUE.");
  }
}

const LabelValue& Dataset::row(Part p, std::size_t i, double* x) {
  if (projection_) {
    source_->features(p, i, scratch_.data());
    projection_->apply(scratch_.data(), scratch_.size(), x);
  } else {
    source_->features(p, i, x);
  }
  preprocessing::normalize_row(x, dims(), normalize_);
  // Every value read is finite, but min-max scaling by a range that
  // overflows float8 (a column from -1e308 to 1e308) gives inf / inf.
  for (std::size_t k = 0; k < dims(); ++k)
    if (!std::isfinite(x[k]))
      fail(ErrorKind::InvalidData,
           file_line(source_->file(p), source_->origin(p, i).line) + " has a feature that is not a finite number "
               "after scaling",
           "A numeric column's range (max - min) or a projected value overflows float8.",
           "Rescale the column, or declare public --bounds whose difference is finite.");
  return labels_->value(source_->label_code(p, i));
}

std::vector<std::string> Dataset::notices() const {
  std::vector<std::string> out = source_->notices();
  if (projection_)
    out.push_back("random projection " + std::to_string(projection_->input_dim()) + " -> " +
                  std::to_string(projection_->output_dim()) + " dims, Gaussian N(0, 1/k) matrix from seed " +
                  std::to_string(projection_->seed()) +
                  (projection_seed_drawn_ ? " (drawn at random; pass --projection-seed to choose it)" : "") +
                  ": data-independent, so inside the privacy guarantee; the seed is public");
  switch (normalize_) {
    case preprocessing::RowNormalization::UnitL2: out.push_back("each row divided by its L2 norm (per-row, DP-safe)"); break;
    case preprocessing::RowNormalization::Clip: out.push_back("rows of L2 norm > 1 scaled to norm 1 (per-row, DP-safe)"); break;
    case preprocessing::RowNormalization::None:
      out.push_back("rows NOT normalized (--normalize none): the privacy analyses assume ||x||_2 <= 1");
      break;
  }
  return out;
}

nlohmann::json Dataset::metadata() const {
  nlohmann::json j = source_->describe();
  j["format"] = format_name(format_);
  j["file"] = source_->file(Part::Train);
  if (has_test()) j["test_file"] = source_->file(Part::Test);
  j["input_features"] = source_->dims();
  const std::vector<std::string> names = source_->feature_names();
  if (!names.empty() && !projection_) j["feature_names"] = names;
  j["features"] = dims();
  j["normalize"] = preprocessing::row_normalization_name(normalize_);
  j["label_type"] = label_sql_type(labels_->type());
  j["classes"] = labels_->classes();
  if (options_.public_classes) j["classes_public"] = true;
  if (labels_->type() == LabelType::Boolean) j["positive"] = labels_->positive();
  j["dropped_rows"] = {{"train", source_->dropped(Part::Train)}, {"test", source_->dropped(Part::Test)}};
  if (format_ == Format::Csv || format_ == Format::Sklearn)
    j["csv"] = {{"delimiter", std::string(1, options_.csv.dialect.delimiter)},
                {"comment", options_.csv.dialect.comment_prefixes},
                {"missing", options_.csv.missing},
                {"drop_missing", options_.csv.drop_missing}};
  j["from_data"] = preprocessing::load_spec_reads_data(j);
  if (projection_)
    j["projection"] = {{"kind", "gaussian N(0, 1/k)"},
                       {"input_dim", projection_->input_dim()},
                       {"output_dim", projection_->output_dim()},
                       {"seed", projection_->seed()}};
  return j;
}

void PartStats::add(const double* x, std::size_t n, const LabelValue& y) {
  ++rows;
  if (y.boolean) ++positives;
  Eigen::Map<const Eigen::VectorXd> v(x, static_cast<Eigen::Index>(n));
  feature_sum += v.sum();
  max_norm = std::max(max_norm, v.norm());
}

}  // namespace dptrain::loader
