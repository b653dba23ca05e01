#include "loader/column_schema.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "loader/text_input.h"

namespace dptrain::loader {
namespace {

// A column of at least this many distinct numbers and at most this many other
// values is most likely numeric with a missing-value marker or a typo
// (an R export writes NA): notices() says so.
constexpr std::size_t kAlmostNumericNumbers = 10;
constexpr std::size_t kAlmostNumericOthers = 2;

std::string join(const std::vector<std::string>& v, std::size_t max_items = 10) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max_items; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > max_items) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return s;
}

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

std::pair<std::string, std::string> split_assignment(const std::string& item, const char* option) {
  const auto eq = item.find('=');
  if (eq == std::string::npos || eq == 0)
    fail(ErrorKind::InvalidParameter, std::string("bad ") + option + " item \"" + item + "\"", {},
         std::string(option) == "--bounds" ? "Write column=min:max (or *=min:max for every numeric column)."
                                            : "Write column=value1|value2|...");
  return {trimmed(item.substr(0, eq)), item.substr(eq + 1)};
}

// The first row (of either part) whose cell in `column` satisfies `pred`.
template <typename Pred>
std::string where_first(const CsvTable& t, std::size_t column, Pred pred) {
  for (int p = 0; p < 2; ++p) {
    const CsvPart& part = t.parts[p];
    for (std::size_t i = 0; i < part.rows(); ++i)
      if (pred(part.codes[i * t.width() + column])) return file_line(part.file, part.origin[i].line);
  }
  return "?";
}

}  // namespace

// Bounds whose width max - min is not a double scale every value to inf/inf.
[[noreturn]] void fail_too_wide(const std::string& column, const std::string& from) {
  fail(ErrorKind::InvalidParameter,
       "the range of column \"" + column + "\" (from " + from + ") is too wide: max - min overflows a double", {},
       "Pass narrower --bounds for it, e.g. " + column + "=-1e300:1e300, or rescale the column.");
}

void parse_bounds_spec(const std::string& spec, std::map<std::string, Bounds>& out) {
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, comma - start);
    start = comma + 1;
    if (trimmed(item).empty()) continue;
    const auto [name, range] = split_assignment(item, "--bounds");
    const auto colon = range.find(':', 1);  // not the sign of a negative minimum
    const auto lo = colon == std::string::npos ? std::nullopt : parse_number(trimmed(range.substr(0, colon)));
    const auto hi = colon == std::string::npos ? std::nullopt : parse_number(trimmed(range.substr(colon + 1)));
    if (!lo || !hi)
      fail(ErrorKind::InvalidParameter, "bad bounds \"" + range + "\" for column \"" + name + "\"", {},
           "Write column=min:max with two finite numbers, e.g. age=17:90.");
    if (!(*lo < *hi))
      fail(ErrorKind::InvalidParameter, "empty bounds " + range + " for column \"" + name + "\"", {},
           "The minimum must be smaller than the maximum.");
    if (!std::isfinite(*hi - *lo)) fail_too_wide(name, "--bounds " + range);
    out[name] = Bounds{*lo, *hi};
  }
}

void parse_categories_spec(const std::string& spec, std::map<std::string, std::vector<std::string>>& out) {
  const auto [name, list] = split_assignment(spec, "--categories");
  std::vector<std::string> values;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t bar = std::min(list.find('|', start), list.size());
    values.push_back(trimmed(list.substr(start, bar - start)));
    start = bar + 1;
  }
  std::set<std::string> seen;
  for (const auto& v : values) {
    if (v.empty()) fail(ErrorKind::InvalidParameter, "empty category in --categories for column \"" + name + "\"");
    if (!seen.insert(v).second)
      fail(ErrorKind::InvalidParameter, "category \"" + v + "\" listed twice for column \"" + name + "\"");
  }
  out[name] = std::move(values);
}

namespace {

// The feature index of the column `name` that `option` names.
std::size_t feature_index(const CsvTable& t, const std::string& name, const char* option) {
  for (std::size_t f = 0; f < t.width(); ++f)
    if (t.names[t.feature_columns[f]] == name) return f;
  if (name == t.names[t.label_column])
    fail(ErrorKind::InvalidParameter, std::string(option) + " names the label column \"" + name + "\"");
  std::vector<std::string> features;
  for (std::size_t c : t.feature_columns) features.push_back(t.names[c]);
  fail(ErrorKind::InvalidParameter, std::string("unknown column \"") + name + "\" in " + option,
       "Feature columns: " + join(features) + ".",
       "Name columns as in the header or --columns (c1, c2, ... for a file without header).");
}

// Each feature's kind as the options force it: +1 numeric, -1 categorical,
// 0 as its values say. Every column the options name is checked to exist.
std::vector<int> forced_kinds(const CsvTable& t, const SchemaOptions& o) {
  std::vector<int> forced(t.width(), 0);
  for (const auto& n : o.numeric) forced[feature_index(t, n, "--numeric")] = 1;
  for (const auto& n : o.categorical) {
    const std::size_t f = feature_index(t, n, "--categorical");
    if (forced[f] == 1) fail(ErrorKind::InvalidParameter, "column \"" + n + "\" is both --numeric and --categorical");
    forced[f] = -1;
  }
  for (const auto& [n, list] : o.categories) {
    const std::size_t f = feature_index(t, n, "--categories");
    if (forced[f] == 1) fail(ErrorKind::InvalidParameter, "column \"" + n + "\" is --numeric but has --categories");
    forced[f] = -1;
  }
  for (const auto& [n, b] : o.bounds)
    if (n != "*") feature_index(t, n, "--bounds");
  return forced;
}

// Values present in the kept rows (a dropped row contributes nothing), per feature and code.
std::vector<std::vector<bool>> used_values(const CsvTable& t) {
  std::vector<std::vector<bool>> used(t.width());
  for (std::size_t f = 0; f < t.width(); ++f) used[f].assign(t.values[f].size(), false);
  for (const CsvPart& part : t.parts)
    for (std::size_t k = 0; k < part.codes.size(); ++k) {
      const std::uint32_t c = part.codes[k];
      if (c != kMissing) used[k % t.width()][c] = true;
    }
  return used;
}

// "5,1" or "1,000": a number written with one comma for the point (a European
// CSV's decimal comma, or a thousands separator), which parse_number refuses.
bool comma_number(const std::string& s) {
  const std::size_t comma = s.find(',');
  if (comma == std::string::npos || s.find_first_of(",.", comma + 1) != std::string::npos ||
      s.find('.') != std::string::npos)
    return false;
  std::string dotted = s;
  dotted[comma] = '.';
  return parse_number(dotted).has_value();
}

// What a column's used values are: numbers (and which), or not.
struct ValueKinds {
  std::vector<double> number;  // per code: its number (0 for a non-number)
  bool all_numbers = true, any_value = false;
  std::uint32_t bad = kMissing;  // the first non-number
  std::size_t numbers = 0, non_numbers = 0;  // distinct values of each kind
  std::size_t comma_numbers = 0;  // non-numbers that are numbers with a comma for the point
};

ValueKinds value_kinds(const Dictionary& dict, const std::vector<bool>& used) {
  ValueKinds k;
  k.number.assign(dict.size(), 0.0);
  for (std::uint32_t c = 0; c < dict.size(); ++c) {
    if (!used[c]) continue;
    k.any_value = true;
    const auto v = parse_number(dict.value(c));
    if (v) {
      k.number[c] = *v;
      ++k.numbers;
    } else {
      k.all_numbers = false;
      ++k.non_numbers;
      if (comma_number(dict.value(c))) ++k.comma_numbers;
      if (k.bad == kMissing) k.bad = c;
    }
  }
  return k;
}

// A numeric column's bounds: the user's (its own or "*"), else the training part's range.
void choose_bounds(const CsvTable& t, std::size_t f, const SchemaOptions& o, ColumnEncoding& col) {
  const auto user = o.bounds.count(col.name) ? o.bounds.find(col.name) : o.bounds.find("*");
  if (user != o.bounds.end()) {
    if (!std::isfinite(user->second.hi - user->second.lo)) fail_too_wide(col.name, "the given bounds");
    col.bounds = user->second;
    col.origin = BoundsOrigin::User;
    return;
  }
  double lo = INFINITY, hi = -INFINITY;
  const CsvPart& train = t.parts[0];
  for (std::size_t i = 0; i < train.rows(); ++i) {
    const double v = col.number[train.codes[i * t.width() + f]];
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!std::isfinite(hi - lo)) fail_too_wide(col.name, "its training values");
  col.bounds = Bounds{lo, hi};
  col.origin = BoundsOrigin::Data;
}

// Column `f` as one number: every value a number, none missing; clipped to its bounds.
void encode_numeric(const CsvTable& t, std::size_t f, const SchemaOptions& o, ValueKinds& k, ColumnEncoding& col) {
  const Dictionary& dict = t.values[f];
  const std::uint32_t bad = k.bad;
  if (bad != kMissing)
    fail(ErrorKind::InvalidData,
         "bad number \"" + dict.value(bad) + "\" in numeric column \"" + col.name + "\" at " +
             where_first(t, f, [bad](std::uint32_t c) { return c == bad; }),
         {}, "Fix the value, or drop --numeric " + col.name + " to one-hot encode the column.");
  const std::string at = where_first(t, f, [](std::uint32_t c) { return c == kMissing; });
  if (at != "?")
    fail(ErrorKind::InvalidData, "missing value in numeric column \"" + col.name + "\" at " + at, {},
         "Pass --drop-missing to skip rows with missing values (or give the missing marker with --missing).");
  col.number = std::move(k.number);
  choose_bounds(t, f, o, col);
  for (int p = 0; p < 2; ++p) {
    const CsvPart& part = t.parts[p];
    for (std::size_t i = 0; i < part.rows(); ++i) {
      const double v = col.number[part.codes[i * t.width() + f]];
      if (v < col.bounds.lo || v > col.bounds.hi) ++col.clipped[p];
    }
  }
  col.width = 1;
}

// The notice of a column one-hot encoded because of a few non-numbers among many numbers.
std::string almost_numeric_notice(const CsvTable& t, std::size_t f, const ValueKinds& k, const std::string& name) {
  const Dictionary& dict = t.values[f];
  const std::uint32_t bad = k.bad;
  return "column \"" + name + "\" is one-hot encoded (" + std::to_string(k.numbers + k.non_numbers) +
         " categories) because of the non-number \"" + dict.value(bad) + "\" at " +
         where_first(t, f, [bad](std::uint32_t c) { return c == bad; }) + "; its other " +
         (k.non_numbers > 1 ? "values but one are" : "values are") +
         " numbers. A missing-value marker? Pass --missing '" + dict.value(bad) +
         "' (with --drop-missing). A typo? Fix it, or force the column numeric with --numeric " + name + ".";
}

// The notice of a column one-hot encoded because its numbers have a comma for the point.
std::string comma_numbers_notice(const CsvTable& t, std::size_t f, const ValueKinds& k, const std::string& name) {
  const Dictionary& dict = t.values[f];
  const std::uint32_t bad = k.bad;
  return "column \"" + name + "\" is one-hot encoded (" + std::to_string(k.numbers + k.non_numbers) +
         " categories), but its values are numbers with a comma for the point (\"" + dict.value(bad) + "\" at " +
         where_first(t, f, [bad](std::uint32_t c) { return c == bad; }) +
         "): a decimal comma or a thousands separator? dptrain load reads numbers with a point only: convert "
         "the file (e.g. a semicolon-separated file: sed 's/,/./g; s/;/,/g'), or pass --categorical " + name +
         " to one-hot encode it on purpose.";
}

// Column `f` one-hot: the user's categories, else the used values sorted.
void encode_categorical(const CsvTable& t, std::size_t f, const SchemaOptions& o, const ValueKinds& k,
                        bool forced, const std::vector<bool>& used, ColumnEncoding& col) {
  const Dictionary& dict = t.values[f];
  if (!forced && k.non_numbers <= kAlmostNumericOthers && k.numbers >= kAlmostNumericNumbers)
    col.almost_numeric = almost_numeric_notice(t, f, k, col.name);
  else if (!forced && k.comma_numbers == k.non_numbers && k.numbers + k.non_numbers >= kAlmostNumericNumbers)
    col.almost_numeric = comma_numbers_notice(t, f, k, col.name);
  if (o.bounds.count(col.name))
    fail(ErrorKind::InvalidParameter, "--bounds given for column \"" + col.name + "\", which is categorical",
         "It holds the non-numeric value \"" + (k.bad != kMissing ? dict.value(k.bad) : std::string()) + "\".",
         "Bounds apply to numeric columns; force one with --numeric " + col.name + ".");
  const auto listed = o.categories.find(col.name);
  if (listed != o.categories.end()) {
    col.categories = listed->second;
    col.user_categories = true;
  } else {
    for (std::uint32_t c = 0; c < dict.size(); ++c)
      if (used[c]) col.categories.push_back(dict.value(c));
    std::sort(col.categories.begin(), col.categories.end());
  }
  col.slot.assign(dict.size(), -1);
  for (std::size_t i = 0; i < col.categories.size(); ++i) {
    const std::uint32_t c = dict.find(col.categories[i]);
    if (c != kMissing) col.slot[c] = static_cast<std::int32_t>(i);
  }
  if (col.user_categories)
    for (const CsvPart& part : t.parts)
      for (std::size_t i = 0; i < part.rows(); ++i) {
        const std::uint32_t c = part.codes[i * t.width() + f];
        if (c != kMissing && col.slot[c] < 0) ++col.unlisted;
      }
  col.width = col.categories.size();
}

}  // namespace

ColumnSchema::ColumnSchema(const CsvTable& t, const SchemaOptions& o) {
  const std::vector<int> forced = forced_kinds(t, o);  // resolves the column names the options use
  const std::vector<std::vector<bool>> used = used_values(t);
  std::size_t offset = 0;
  for (std::size_t f = 0; f < t.width(); ++f) {
    ColumnEncoding col;
    col.name = t.names[t.feature_columns[f]];
    col.column = f;
    ValueKinds k = value_kinds(t.values[f], used[f]);
    col.numeric = forced[f] == 1 || (forced[f] == 0 && k.all_numbers && k.any_value);
    if (col.numeric)
      encode_numeric(t, f, o, k, col);
    else
      encode_categorical(t, f, o, k, forced[f] != 0, used[f], col);
    col.offset = offset;
    offset += col.width;
    columns_.push_back(std::move(col));
  }
  dims_ = offset;
  if (dims_ == 0) fail(ErrorKind::InvalidData, "the input has no features besides the label");
}

void ColumnSchema::encode(const std::uint32_t* codes, double* out) const {
  std::fill(out, out + dims_, 0.0);
  for (const ColumnEncoding& col : columns_) {
    const std::uint32_t c = codes[col.column];
    if (c == kMissing) continue;  // categorical only (numeric missing values are refused)
    if (col.numeric) {
      const double v = col.number[c];
      const double range = col.bounds.hi - col.bounds.lo;
      double x = range > 0 ? (v - col.bounds.lo) / range : (v > col.bounds.hi ? 1.0 : 0.0);
      out[col.offset] = std::clamp(x, 0.0, 1.0);
    } else if (col.slot[c] >= 0) {
      out[col.offset + static_cast<std::size_t>(col.slot[c])] = 1.0;
    }
  }
}

std::vector<std::string> ColumnSchema::feature_names() const {
  std::vector<std::string> names;
  names.reserve(dims_);
  for (const ColumnEncoding& col : columns_) {
    if (col.numeric) names.push_back(col.name);
    else
      for (const auto& c : col.categories) names.push_back(col.name + "=" + c);
  }
  return names;
}

nlohmann::json ColumnSchema::describe() const {
  nlohmann::json numeric = nlohmann::json::object(), categorical = nlohmann::json::object();
  for (const ColumnEncoding& col : columns_) {
    if (col.numeric)
      numeric[col.name] = {{"min", col.bounds.lo},
                           {"max", col.bounds.hi},
                           {"bounds", col.origin == BoundsOrigin::User ? "user" : "training data"},
                           {"clipped_train", col.clipped[0]},
                           {"clipped_test", col.clipped[1]}};
    else
      categorical[col.name] = {{"categories", col.categories},
                               {"list", col.user_categories ? "user" : "data (train and test)"}};
  }
  return {{"numeric", numeric}, {"categorical", categorical}};
}

std::vector<std::string> ColumnSchema::notices() const {
  std::vector<std::string> data_bounds, user_bounds, data_lists;
  std::uint64_t clipped_user = 0;
  for (const ColumnEncoding& col : columns_) {
    if (col.numeric && col.origin == BoundsOrigin::Data) data_bounds.push_back(col.name);
    if (col.numeric && col.origin == BoundsOrigin::User) {
      user_bounds.push_back(col.name);
      clipped_user += col.clipped[0] + col.clipped[1];
    }
    if (!col.numeric && !col.user_categories) data_lists.push_back(col.name);
  }
  std::vector<std::string> out;
  for (const ColumnEncoding& col : columns_)
    if (!col.almost_numeric.empty()) out.push_back(col.almost_numeric);
  if (!user_bounds.empty())
    out.push_back("numeric columns scaled to [0, 1] with user-given bounds: " + join(user_bounds) +
                  (clipped_user ? " (" + std::to_string(clipped_user) + " values outside the bounds clipped)" : ""));
  if (!data_bounds.empty())
    out.push_back("numeric columns scaled to [0, 1] with bounds derived from the training data: " +
                  join(data_bounds) +
                  ". Data-derived bounds are OUTSIDE the privacy guarantee; give public bounds with --bounds "
                  "column=min:max (or *=min:max) to stay inside it.");
  if (!data_lists.empty())
    out.push_back("categorical columns one-hot encoded with the categories found in the data: " + join(data_lists) +
                  ". Data-derived category lists are OUTSIDE the privacy guarantee; give public lists with "
                  "--categories column=a|b|c to stay inside it.");
  return out;
}

}  // namespace dptrain::loader
