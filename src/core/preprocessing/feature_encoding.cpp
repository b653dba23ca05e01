#include "core/preprocessing/feature_encoding.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/error.h"

namespace dptrain::preprocessing {
namespace {

constexpr int kMaxFeatures = 100000;  // the engine's own limit on d is larger; a one-hot of more is a mistake

void bad(const std::string& message, const std::string& hint) {
  fail(ErrorKind::InvalidParameter, message, {}, hint);
}

void validate_column(const EncodedColumn& c) {
  if (c.name.empty()) bad("a feature column has an empty name", "Name every column.");
  if (c.kind == ColumnKind::Numeric &&
      !(std::isfinite(c.lo) && std::isfinite(c.hi) && c.lo < c.hi && std::isfinite(c.hi - c.lo)))
    bad("the bounds of numeric column \"" + c.name + "\" must be finite with lo < hi",
        "Declare public bounds, e.g. bounds => '{\"" + c.name + "\": [0, 100]}'.");
  if (c.kind != ColumnKind::Categorical) return;
  if (c.categories.empty())
    bad("text column \"" + c.name + "\" has no categories",
        "Declare them, e.g. categories => '{\"" + c.name + "\": [\"a\", \"b\"]}'.");
  std::set<std::string> seen;
  for (const std::string& v : c.categories)
    if (!seen.insert(v).second)
      bad("category \"" + v + "\" of column \"" + c.name + "\" is listed twice", "List each category once.");
}

ColumnKind parse_kind(const std::string& s, const std::string& column) {
  if (s == "numeric") return ColumnKind::Numeric;
  if (s == "boolean") return ColumnKind::Boolean;
  if (s == "categorical") return ColumnKind::Categorical;
  fail(ErrorKind::InvalidParameter, "column \"" + column + "\" has unknown type \"" + s + "\"", {},
       "Use numeric, boolean or categorical.");
}

// strtod on a bounded copy: PostgreSQL's text forms of numbers ("17", "3.5e2",
// "NaN", "Infinity", "-Infinity") all parse.
std::optional<double> parse_number(std::string_view text) {
  const std::string s(text);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::optional<bool> parse_boolean(std::string_view s) {
  if (s == "t" || s == "true") return true;
  if (s == "f" || s == "false") return false;
  return std::nullopt;
}

}  // namespace

const char* column_kind_name(ColumnKind k) {
  switch (k) {
    case ColumnKind::Numeric: return "numeric";
    case ColumnKind::Boolean: return "boolean";
    case ColumnKind::Categorical: return "categorical";
  }
  return "?";
}

FeatureEncoding::FeatureEncoding(std::vector<EncodedColumn> columns, RowNormalization normalization)
    : columns_(std::move(columns)), normalization_(normalization) {
  if (columns_.empty()) bad("no feature columns", "Pass features => ARRAY['column', ...].");
  if (normalization_ == RowNormalization::None)
    bad("encoded rows must be normalized", "Use normalization => 'l2' (default) or 'clip'.");
  std::set<std::string> names;
  long dim = 0;
  for (const EncodedColumn& c : columns_) {
    validate_column(c);
    if (!names.insert(c.name).second) bad("column \"" + c.name + "\" is listed twice", "List each column once.");
    dim += c.width();
  }
  if (dim > kMaxFeatures)
    fail(ErrorKind::ProgramLimit, "the encoding has " + std::to_string(dim) + " features",
         "At most " + std::to_string(kMaxFeatures) + " are allowed.", "Declare fewer categories.");
  dim_ = static_cast<int>(dim);
}

FeatureEncoding FeatureEncoding::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("columns") || !j["columns"].is_array())
    fail(ErrorKind::InvalidParameter, "malformed feature encoding", "It needs an array \"columns\".",
         "Build encodings with dp_encoding(...).");
  std::vector<EncodedColumn> cols;
  try {
    for (const auto& c : j["columns"]) {
      EncodedColumn e;
      e.name = c.at("name").get<std::string>();
      e.kind = parse_kind(c.at("type").get<std::string>(), e.name);
      // The declarations as the caller wrote them (dp_train's bounds and
      // categories land here verbatim): refused in the caller's terms, not
      // as a JSON library's type error naming dp_encoding.
      if (e.kind == ColumnKind::Numeric) {
        const auto& b = c.at("bounds");
        if (!b.is_array() || b.size() != 2 || !b[0].is_number() || !b[1].is_number())
          fail(ErrorKind::InvalidParameter, "the bounds of numeric column \"" + e.name + "\" must be two numbers",
               "Got " + b.dump() + ".",
               "Declare public bounds [lo, hi], e.g. bounds => '{\"" + e.name + "\": [0, 100]}'.");
        e.lo = b[0].get<double>();
        e.hi = b[1].get<double>();
      } else if (e.kind == ColumnKind::Categorical) {
        const auto& k = c.at("categories");
        bool strings = k.is_array();
        for (const auto& v : k) strings = strings && v.is_string();
        if (!strings)
          fail(ErrorKind::InvalidParameter, "the categories of column \"" + e.name + "\" must be a list of strings",
               "Got " + k.dump() + ".",
               "Declare them as text, e.g. categories => '{\"" + e.name + "\": [\"a\", \"b\"]}'.");
        e.categories = k.get<std::vector<std::string>>();
        e.categories_from_data = c.value("categories_from_data", false);
      }
      cols.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& ex) {
    fail(ErrorKind::InvalidParameter, "malformed feature encoding", ex.what(), "Build encodings with dp_encoding(...).");
  }
  return FeatureEncoding(std::move(cols), parse_row_normalization(j.value("normalize", std::string("l2"))));
}

nlohmann::json FeatureEncoding::to_json() const {
  nlohmann::json cols = nlohmann::json::array();
  for (const EncodedColumn& c : columns_) {
    nlohmann::json o = {{"name", c.name}, {"type", column_kind_name(c.kind)}};
    if (c.kind == ColumnKind::Numeric) o["bounds"] = {c.lo, c.hi};
    if (c.kind == ColumnKind::Categorical) {
      o["categories"] = c.categories;
      o["categories_from_data"] = c.categories_from_data;
    }
    cols.push_back(std::move(o));
  }
  return {{"columns", cols}, {"normalize", row_normalization_name(normalization_)}, {"dim", dim_}};
}

bool FeatureEncoding::any_categories_from_data() const {
  return std::any_of(columns_.begin(), columns_.end(), [](const EncodedColumn& c) { return c.categories_from_data; });
}

std::vector<std::string> FeatureEncoding::feature_names() const {
  std::vector<std::string> names;
  for (const EncodedColumn& c : columns_) {
    if (c.kind != ColumnKind::Categorical) names.push_back(c.name);
    for (const std::string& v : c.categories) names.push_back(c.name + "=" + v);
  }
  return names;
}

bool FeatureEncoding::encode(const std::vector<std::optional<std::string_view>>& values, double* out) const {
  if (values.size() != columns_.size())
    fail(ErrorKind::InvalidParameter,
         "the encoding has " + std::to_string(columns_.size()) + " columns, the row " + std::to_string(values.size()),
         {}, "Pass one value per encoded column, in the encoding's order.");
  std::fill(out, out + dim_, 0.0);
  double* at = out;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const EncodedColumn& c = columns_[i];
    const std::optional<std::string_view>& v = values[i];
    if (c.kind == ColumnKind::Categorical) {
      if (v) {
        const auto hit = std::find(c.categories.begin(), c.categories.end(), *v);
        if (hit != c.categories.end()) at[hit - c.categories.begin()] = 1.0;
      }
    } else if (!v) {
      return false;
    } else if (c.kind == ColumnKind::Boolean) {
      const std::optional<bool> b = parse_boolean(*v);
      // The value is not echoed: errors must not show data (docs/governance.md).
      if (!b)
        fail(ErrorKind::InvalidData, "boolean column \"" + c.name + "\" holds a value that is not a boolean", {},
             "Pass true/false (or t/f) for boolean columns.");
      *at = *b ? 1.0 : 0.0;
    } else {
      const std::optional<double> x = parse_number(*v);
      if (!x)
        fail(ErrorKind::InvalidData, "numeric column \"" + c.name + "\" holds a value that is not a number", {},
             "Encode numbers only from numeric columns; declare text columns as categories.");
      if (std::isnan(*x)) return false;
      *at = (std::clamp(*x, c.lo, c.hi) - c.lo) / (c.hi - c.lo);
    }
    at += c.width();
  }
  normalize_row(out, static_cast<std::size_t>(dim_), normalization_);
  return true;
}

}  // namespace dptrain::preprocessing
