#include "loader/load_spec.h"

#include "core/error.h"
#include "core/sparse/sparse_vector.h"
#include "loader/csv_source.h"

namespace dptrain::loader {
namespace {

[[noreturn]] void incomplete(const std::string& what) {
  fail(ErrorKind::InvalidParameter, "the model's load spec has no " + what, {},
       "Load the training table again with this version of dptrain load, train again, and score with the new "
       "model; or score the test table the loader made (dptrain eval --table).");
}

const nlohmann::json& required(const nlohmann::json& spec, const char* key) {
  const auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) incomplete(std::string("\"") + key + "\"");
  return *it;
}

// The CSV reading options and the column schema of the spec, fixed: every
// numeric column gets its bounds and every categorical one its list, as if
// the user had declared them, so nothing is read from the new file.
void csv_options(const nlohmann::json& spec, LoadOptions& o) {
  const nlohmann::json& csv = required(spec, "csv");
  const std::string delimiter = csv.at("delimiter").get<std::string>();
  if (delimiter.size() != 1) incomplete("valid CSV delimiter");
  o.csv.dialect.delimiter = delimiter[0];
  o.csv.dialect.comment_prefixes = csv.at("comment").get<std::string>();
  o.csv.missing = csv.at("missing").get<std::vector<std::string>>();
  o.csv.drop_missing = csv.at("drop_missing").get<bool>();
  const std::string header = required(spec, "header").get<std::string>();
  o.csv.header = header == "names";
  o.format = header == "scikit-learn" ? Format::Sklearn : Format::Csv;
  // Without a header the names are the spec's (c1, c2, ... or --columns):
  // the file must have as many columns.
  if (header == "none" || spec.contains("file_header"))
    o.csv.column_names = required(spec, "columns").get<std::vector<std::string>>();
  o.csv.label = required(spec, "label_column").get<std::string>();
  for (const auto& [name, col] : required(spec, "numeric").items()) {
    o.schema.numeric.push_back(name);
    o.schema.bounds[name] = Bounds{col.at("min").get<double>(), col.at("max").get<double>()};
  }
  for (const auto& [name, col] : required(spec, "categorical").items())
    o.schema.categories[name] = col.at("categories").get<std::vector<std::string>>();
}

// f(), reading entries of the spec: one of a wrong JSON type, or missing
// where at() expects it, is an incomplete spec, not a raw nlohmann exception.
template <typename F>
auto spec_entries(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const nlohmann::json::exception& e) {
    incomplete(std::string("valid entry (") + e.what() + ")");
  }
}

// The width of the model's rows. The spec is JSON anyone registering a table
// wrote: -1 read as a size_t, or 10^15, made every scored row an allocation
// of that many doubles (std::length_error, or the OOM killer). No row is
// wider than a dptrain.sparsevec (kMaxDim; a float8[] row holds fewer).
std::size_t input_features(const nlohmann::json& spec) {
  const nlohmann::json& n = required(spec, "input_features");
  if (!n.is_number_unsigned() || n.get<std::uint64_t>() < 1 ||
      n.get<std::uint64_t>() > static_cast<std::uint64_t>(sparse::kMaxDim))
    incomplete("valid \"input_features\" (a count from 1 to " + std::to_string(sparse::kMaxDim) + "; it has " +
               n.dump() + ")");
  return n.get<std::size_t>();
}

void check_matches(const Dataset& data, const nlohmann::json& spec, const std::string& file) {
  if (data.format() == Format::Csv || data.format() == Format::Sklearn) {
    const CsvTable& table = static_cast<const CsvSource&>(data.source()).table();
    // A header renamed by --columns at load time: compare the file's own line.
    const bool renamed = spec.contains("file_header");
    const auto names = renamed ? table.file_header : table.names;
    const auto expected = spec.at(renamed ? "file_header" : "columns").get<std::vector<std::string>>();
    if (names != expected) {
      std::string got;
      for (const auto& n : names) got += (got.empty() ? "" : ", ") + n;
      fail(ErrorKind::InvalidData, "the columns of \"" + file + "\" do not match the model's load spec",
           "The file has: " + got + "; the model was trained on " + spec.at(renamed ? "file_header" : "columns").dump() + ".",
           "Score a file with the columns of the training file, in the same order.");
    }
  }
  const auto expected_dims = spec.at("input_features").get<std::size_t>();
  if (data.input_dims() != expected_dims)
    fail(ErrorKind::InvalidData,
         "\"" + file + "\" gives " + std::to_string(data.input_dims()) + " features, the model's load spec " +
             std::to_string(expected_dims),
         {}, "Score a file of the format and width of the training file.");
}

// A per-column object without the counts of its values outside the bounds.
void erase_counts(nlohmann::json& spec) {
  spec.erase("dropped_rows");
  const auto numeric = spec.find("numeric");
  if (numeric == spec.end() || !numeric->is_object()) return;
  for (auto& [name, col] : numeric->items()) {
    col.erase("clipped_train");
    col.erase("clipped_test");
  }
}

}  // namespace

nlohmann::json registered_spec(const nlohmann::json& metadata) {
  nlohmann::json spec = metadata;
  erase_counts(spec);
  const auto classes = spec.find("classes");
  if (spec.contains("positive") && classes != spec.end() && classes->is_array() && classes->size() > 2) {
    spec["classes"] = nlohmann::json::array({spec["positive"]});
    spec["one_vs_rest"] = true;
  }
  return spec;
}

nlohmann::json public_comment(const nlohmann::json& metadata) {
  nlohmann::json c = metadata;
  erase_counts(c);
  c.erase("classes");
  // The loader's paths (a directory or file name may say whose or what the
  // rows are): the withheld spec leaves them out too.
  c.erase("file");
  c.erase("test_file");
  bool data_lists = false;
  if (c.contains("numeric"))
    for (auto& [name, col] : c["numeric"].items())
      if (col.value("bounds", "") != "user") {
        col.erase("min");
        col.erase("max");
      }
  if (c.contains("categorical"))
    for (auto& [name, col] : c["categorical"].items())
      if (col.value("list", "") != "user") {
        col.erase("categories");
        data_lists = true;
      }
  if (data_lists) c.erase("feature_names");
  c["load_spec"] = "registered with the extension (dptrain.load_specs); stored with the models trained on the table";
  return c;
}

LoadOptions scoring_options(const nlohmann::json& spec, const std::string& file, const std::string& labels_file) {
  if (!spec.is_object()) incomplete("object");
  if (spec.value("withheld", false) && spec.value("through_view", false))
    fail(ErrorKind::InvalidParameter, "the model was trained on a view of a loaded table",
         "The table's load spec maps the table's columns, not the view's.",
         "Train on the loaded table itself to score raw files, or score a table (dptrain eval --table).");
  if (spec.value("withheld", false))
    fail(ErrorKind::InvalidParameter, "the model's load spec was withheld from it",
         "Its creator could not read the training table, and the spec holds facts of its rows.",
         "Score the test table the loader made (dptrain eval --table), or ask the table's owner to train.");
  LoadOptions o;
  o.file = file;
  o.labels_file = labels_file;
  const std::string format = required(spec, "format").get<std::string>();
  o.format = parse_format(format);
  if (*o.format == Format::Csv || *o.format == Format::Sklearn) csv_options(spec, o);
  if (*o.format == Format::Libsvm) o.libsvm_dims = input_features(spec);
  o.max_features = std::max(o.max_features, input_features(spec));
  o.normalize = preprocessing::parse_row_normalization(required(spec, "normalize").get<std::string>());
  const auto projection = spec.find("projection");
  if (projection != spec.end() && !projection->is_null()) {
    o.project = projection->at("output_dim").get<std::size_t>();
    o.projection_seed = projection->at("seed").get<std::uint64_t>();
  }
  const auto positive = spec.find("positive");
  if (positive != spec.end() && positive->is_string()) o.labels.positive = positive->get<std::string>();
  o.labels.one_vs_rest = spec.value("one_vs_rest", false);
  o.label_classes = required(spec, "classes").get<std::vector<std::string>>();
  o.labels.max_classes = std::max<std::size_t>(o.labels.max_classes, o.label_classes->size());
  return o;
}

Dataset scoring_dataset(const nlohmann::json& spec, const std::string& file, const std::string& labels_file) {
  const LoadOptions o = spec_entries([&] { return scoring_options(spec, file, labels_file); });
  auto read = [&]() -> Dataset {
    try {
      return Dataset(o);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      throw Error(e.kind(), "\"" + file + "\" does not match the model's load spec: " + e.what(), e.detail(),
                  e.hint().empty() ? "Score a file of the training file's format and columns." : e.hint());
    }
  };
  Dataset data = read();
  spec_entries([&] { check_matches(data, spec, file); });
  return data;
}

}  // namespace dptrain::loader
