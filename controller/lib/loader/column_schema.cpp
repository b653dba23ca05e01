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

ColumnSchema::ColumnSchema(const CsvTable& t, const SchemaOptions& o) {
  // Resolve column names used by the options.
  auto index_of = [&](const std::string& name, const char* option) -> std::size_t {
    for (std::size_t f = 0; f < t.width(); ++f)
      if (t.names[t.feature_columns[f]] == name) return f;
    if (name == t.names[t.label_column])
      fail(ErrorKind::InvalidParameter, std::string(option) + " names the label column \"" + name + "\"");
    std::vector<std::string> features;
    for (std::size_t c : t.feature_columns) features.push_back(t.names[c]);
    fail(ErrorKind::InvalidParameter, std::string("unknown column \"") + name + "\" in " + option,
         "Feature columns: " + join(features) + ".",
         "Name columns as in the header or --columns (c1, c2, ... for a file without header).");
  };
  std::vector<int> forced(t.width(), 0);  // +1 numeric, -1 categorical
  for (const auto& n : o.numeric) forced[index_of(n, "--numeric")] = 1;
  for (const auto& n : o.categorical) {
    const std::size_t f = index_of(n, "--categorical");
    if (forced[f] == 1) fail(ErrorKind::InvalidParameter, "column \"" + n + "\" is both --numeric and --categorical");
    forced[f] = -1;
  }
  for (const auto& [n, list] : o.categories) {
    const std::size_t f = index_of(n, "--categories");
    if (forced[f] == 1) fail(ErrorKind::InvalidParameter, "column \"" + n + "\" is --numeric but has --categories");
    forced[f] = -1;
  }
  for (const auto& [n, b] : o.bounds)
    if (n != "*") index_of(n, "--bounds");

  // Values present in the kept rows (a dropped row contributes nothing).
  std::vector<std::vector<bool>> used(t.width());
  for (std::size_t f = 0; f < t.width(); ++f) used[f].assign(t.values[f].size(), false);
  for (const CsvPart& part : t.parts)
    for (std::size_t k = 0; k < part.codes.size(); ++k) {
      const std::uint32_t c = part.codes[k];
      if (c != kMissing) used[k % t.width()][c] = true;
    }

  std::size_t offset = 0;
  for (std::size_t f = 0; f < t.width(); ++f) {
    ColumnEncoding col;
    col.name = t.names[t.feature_columns[f]];
    col.column = f;
    const Dictionary& dict = t.values[f];
    std::vector<double> number(dict.size(), 0.0);
    bool all_numbers = true, any_value = false;
    std::uint32_t bad = kMissing;
    std::size_t numbers = 0, non_numbers = 0;  // distinct values of each kind
    for (std::uint32_t c = 0; c < dict.size(); ++c) {
      if (!used[f][c]) continue;
      any_value = true;
      const auto v = parse_number(dict.value(c));
      if (v) {
        number[c] = *v;
        ++numbers;
      } else {
        all_numbers = false;
        ++non_numbers;
        if (bad == kMissing) bad = c;
      }
    }
    col.numeric = forced[f] == 1 || (forced[f] == 0 && all_numbers && any_value);
    if (col.numeric && bad != kMissing)
      fail(ErrorKind::InvalidData,
           "bad number \"" + dict.value(bad) + "\" in numeric column \"" + col.name + "\" at " +
               where_first(t, f, [bad](std::uint32_t c) { return c == bad; }),
           {}, "Fix the value, or drop --numeric " + col.name + " to one-hot encode the column.");
    if (col.numeric) {
      const std::string at = where_first(t, f, [](std::uint32_t c) { return c == kMissing; });
      if (at != "?")
        fail(ErrorKind::InvalidData, "missing value in numeric column \"" + col.name + "\" at " + at, {},
             "Pass --drop-missing to skip rows with missing values (or give the missing marker with --missing).");
      col.number = std::move(number);
      const auto user = o.bounds.count(col.name) ? o.bounds.find(col.name) : o.bounds.find("*");
      if (user != o.bounds.end()) {
        col.bounds = user->second;
        col.origin = BoundsOrigin::User;
      } else {
        double lo = INFINITY, hi = -INFINITY;
        const CsvPart& train = t.parts[0];
        for (std::size_t i = 0; i < train.rows(); ++i) {
          const double v = col.number[train.codes[i * t.width() + f]];
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        col.bounds = Bounds{lo, hi};
        col.origin = BoundsOrigin::Data;
      }
      for (int p = 0; p < 2; ++p) {
        const CsvPart& part = t.parts[p];
        for (std::size_t i = 0; i < part.rows(); ++i) {
          const double v = col.number[part.codes[i * t.width() + f]];
          if (v < col.bounds.lo || v > col.bounds.hi) ++col.clipped[p];
        }
      }
      col.width = 1;
    } else {
      if (forced[f] == 0 && non_numbers <= kAlmostNumericOthers && numbers >= kAlmostNumericNumbers)
        col.almost_numeric =
            "column \"" + col.name + "\" is one-hot encoded (" + std::to_string(numbers + non_numbers) +
            " categories) because of the non-number \"" + dict.value(bad) + "\" at " +
            where_first(t, f, [bad](std::uint32_t c) { return c == bad; }) + "; its other " +
            (non_numbers > 1 ? "values but one are" : "values are") +
            " numbers. A missing-value marker? Pass --missing '" + dict.value(bad) +
            "' (with --drop-missing). A typo? Fix it, or force the column numeric with --numeric " + col.name + ".";
      if (o.bounds.count(col.name))
        fail(ErrorKind::InvalidParameter, "--bounds given for column \"" + col.name + "\", which is categorical",
             "It holds the non-numeric value \"" + (bad != kMissing ? dict.value(bad) : std::string()) + "\".",
             "Bounds apply to numeric columns; force one with --numeric " + col.name + ".");
      const auto listed = o.categories.find(col.name);
      if (listed != o.categories.end()) {
        col.categories = listed->second;
        col.user_categories = true;
      } else {
        for (std::uint32_t c = 0; c < dict.size(); ++c)
          if (used[f][c]) col.categories.push_back(dict.value(c));
        std::sort(col.categories.begin(), col.categories.end());
      }
      col.slot.assign(dict.size(), -1);
      for (std::size_t k = 0; k < col.categories.size(); ++k) {
        const std::uint32_t c = dict.find(col.categories[k]);
        if (c != kMissing) col.slot[c] = static_cast<std::int32_t>(k);
      }
      if (col.user_categories)
        for (const CsvPart& part : t.parts)
          for (std::size_t i = 0; i < part.rows(); ++i) {
            const std::uint32_t c = part.codes[i * t.width() + f];
            if (c != kMissing && col.slot[c] < 0) ++col.unlisted;
          }
      col.width = col.categories.size();
    }
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
