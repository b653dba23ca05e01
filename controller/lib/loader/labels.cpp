#include "loader/labels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.h"
#include "loader/csv.h"

namespace dptrain::loader {
namespace {

std::string join(const std::vector<std::string>& v, std::size_t max_items = 12) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max_items; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > max_items) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return s;
}

[[noreturn]] void too_many_classes(const std::vector<std::string>& classes, std::size_t max_classes) {
  throw Error(ErrorKind::ProgramLimit,
              "the label column has " + std::to_string(classes.size()) + " distinct values (more than " +
                  std::to_string(max_classes) + ")",
              "Labels: " + join(classes) + ".",
              "Is --label the right column? Raise --max-classes for a task with that many classes, or use "
              "--positive VALUE for a binary task.");
}

}  // namespace

const char* label_sql_type(LabelType t) {
  switch (t) {
    case LabelType::Boolean: return "boolean";
    case LabelType::Integer: return "integer";
    case LabelType::Text: return "text";
  }
  return "text";
}

LabelEncoder::LabelEncoder(const Dictionary& labels, const std::vector<bool>& in_train, const LabelOptions& o) {
  const std::size_t n = labels.size();
  known_.assign(n, false);
  values_.assign(n, LabelValue{});
  std::vector<std::optional<double>> number(n);
  for (std::uint32_t c = 0; c < n; ++c) number[c] = parse_number(labels.value(c));
  std::vector<std::uint32_t> train_codes;
  for (std::uint32_t c = 0; c < n; ++c)
    if (in_train[c]) train_codes.push_back(c);
  std::vector<std::string> train_labels;
  for (auto c : train_codes) train_labels.push_back(labels.value(c));
  std::sort(train_labels.begin(), train_labels.end());
  const bool all_numbers =
      std::all_of(train_codes.begin(), train_codes.end(), [&](std::uint32_t c) { return number[c].has_value(); });

  // Two labels are the same if they are equal strings or, when every
  // training label is a number, equal numbers ("+1" = "1" = "1.0").
  std::map<std::string, std::uint32_t> train_by_text;
  std::map<double, std::uint32_t> train_by_number;
  for (auto t : train_codes) {
    train_by_text.emplace(labels.value(t), t);
    if (all_numbers) train_by_number.emplace(*number[t], t);
  }
  auto train_equivalent = [&](std::uint32_t c) -> std::optional<std::uint32_t> {
    const auto by_text = train_by_text.find(labels.value(c));
    if (by_text != train_by_text.end()) return by_text->second;
    if (all_numbers && number[c]) {
      const auto by_number = train_by_number.find(*number[c]);
      if (by_number != train_by_number.end()) return by_number->second;
    }
    return std::nullopt;
  };
  auto same = [&](std::uint32_t a, std::uint32_t b) {
    return labels.value(a) == labels.value(b) || (all_numbers && number[a] && number[b] && *number[a] == *number[b]);
  };

  if (o.positive) {
    type_ = LabelType::Boolean;
    std::string p(normalize_label(*o.positive));
    while (!p.empty() && p.back() == ' ') p.pop_back();
    while (!p.empty() && p.front() == ' ') p.erase(p.begin());
    const auto p_number = parse_number(p);
    std::optional<std::uint32_t> pos;
    for (auto t : train_codes)
      if (labels.value(t) == p || (all_numbers && p_number && *number[t] == *p_number)) {
        pos = t;
        break;
      }
    if (!pos)
      fail(ErrorKind::InvalidParameter, "unknown label \"" + *o.positive + "\" given as --positive",
           "Labels in the training rows: " + join(train_labels) + ".",
           "Pass one of the training labels (a trailing '.' is ignored).");
    positive_ = labels.value(*pos);
    const bool one_vs_rest = o.one_vs_rest || train_codes.size() > 2;  // any other label is simply negative
    for (std::uint32_t c = 0; c < n; ++c) {
      known_[c] = one_vs_rest || train_equivalent(c).has_value();
      values_[c].boolean = same(c, *pos);
    }
    std::vector<std::string> negatives;
    for (auto t : train_codes)
      if (!values_[t].boolean) negatives.push_back(labels.value(t));
    std::sort(negatives.begin(), negatives.end());
    classes_ = {positive_};
    classes_.insert(classes_.end(), negatives.begin(), negatives.end());
    return;
  }

  if (train_by_text.size() > o.max_classes) too_many_classes(train_labels, o.max_classes);
  const bool plus_minus_one =
      all_numbers && std::all_of(train_codes.begin(), train_codes.end(),
                                 [&](std::uint32_t c) { return *number[c] == 1.0 || *number[c] == -1.0; });
  const bool integers =
      all_numbers && std::all_of(train_codes.begin(), train_codes.end(), [&](std::uint32_t c) {
        const double v = *number[c];
        return v == std::trunc(v) && std::abs(v) <= std::numeric_limits<std::int32_t>::max();
      });
  type_ = plus_minus_one ? LabelType::Boolean : integers ? LabelType::Integer : LabelType::Text;
  for (std::uint32_t c = 0; c < n; ++c) {
    const auto t = train_equivalent(c);
    if (!t) continue;
    known_[c] = true;
    values_[c].boolean = plus_minus_one && *number[*t] > 0;
    values_[c].integer = integers ? static_cast<std::int32_t>(*number[*t]) : 0;
    values_[c].text = labels.value(*t);
  }
  if (plus_minus_one) {
    positive_ = "+1";
    classes_ = {"+1", "-1"};
  } else if (integers) {
    std::map<std::int32_t, bool> distinct;
    for (auto t : train_codes) distinct[values_[t].integer] = true;
    for (const auto& entry : distinct) classes_.push_back(std::to_string(entry.first));
  } else {
    classes_ = train_labels;
  }
  if (type_ != LabelType::Boolean && classes_.size() > o.max_classes) too_many_classes(classes_, o.max_classes);
}

std::string LabelEncoder::describe_type() const {
  switch (type_) {
    case LabelType::Boolean: return "boolean, true = " + positive_;
    case LabelType::Integer: return "integer";
    case LabelType::Text: return "text";
  }
  return "";
}

}  // namespace dptrain::loader
