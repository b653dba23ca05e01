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

// The labels of the training rows. Two labels are the same if they are
// equal strings or, when every training label is a number, equal numbers
// ("+1" = "1" = "1.0").
class TrainLabels {
 public:
  TrainLabels(const Dictionary& labels, const std::vector<bool>& in_train) : labels_(labels) {
    const std::size_t n = labels.size();
    number.resize(n);
    for (std::uint32_t c = 0; c < n; ++c) number[c] = parse_number(labels.value(c));
    for (std::uint32_t c = 0; c < n; ++c)
      if (in_train[c]) codes.push_back(c);
    for (auto c : codes) sorted.push_back(labels.value(c));
    std::sort(sorted.begin(), sorted.end());
    all_numbers = std::all_of(codes.begin(), codes.end(), [&](std::uint32_t c) { return number[c].has_value(); });
    for (auto t : codes) {
      by_text_.emplace(labels.value(t), t);
      if (all_numbers) by_number_.emplace(*number[t], t);
    }
  }

  // The training label that label `c` is the same as.
  std::optional<std::uint32_t> equivalent(std::uint32_t c) const {
    const auto by_text = by_text_.find(labels_.value(c));
    if (by_text != by_text_.end()) return by_text->second;
    if (all_numbers && number[c]) {
      const auto by_number = by_number_.find(*number[c]);
      if (by_number != by_number_.end()) return by_number->second;
    }
    return std::nullopt;
  }

  bool same(std::uint32_t a, std::uint32_t b) const {
    return labels_.value(a) == labels_.value(b) || (all_numbers && number[a] && number[b] && *number[a] == *number[b]);
  }

  // Every training label a number for which `pred` holds.
  template <typename Pred>
  bool all_numbers_are(Pred pred) const {
    return all_numbers && std::all_of(codes.begin(), codes.end(), [&](std::uint32_t c) { return pred(*number[c]); });
  }

  std::size_t distinct() const { return by_text_.size(); }

  std::vector<std::optional<double>> number;  // per code
  std::vector<std::uint32_t> codes;           // the training labels' codes
  std::vector<std::string> sorted;            // the training labels, sorted
  bool all_numbers = false;

 private:
  const Dictionary& labels_;
  std::map<std::string, std::uint32_t> by_text_;
  std::map<double, std::uint32_t> by_number_;
};

// The code of the training label given as --positive (ERROR if none is).
std::uint32_t positive_code(const Dictionary& labels, const TrainLabels& train, const std::string& given) {
  std::string p(normalize_label(given));
  while (!p.empty() && p.back() == ' ') p.pop_back();
  while (!p.empty() && p.front() == ' ') p.erase(p.begin());
  const auto p_number = parse_number(p);
  for (auto t : train.codes)
    if (labels.value(t) == p || (train.all_numbers && p_number && *train.number[t] == *p_number)) return t;
  fail(ErrorKind::InvalidParameter, "unknown label \"" + given + "\" given as --positive",
       "Labels in the training rows: " + join(train.sorted) + ".",
       "Pass one of the training labels (a trailing '.' is ignored).");
}

// The training labels that are not the positive one, sorted.
std::vector<std::string> sorted_negatives(const Dictionary& labels, const TrainLabels& train,
                                         const std::vector<LabelValue>& values) {
  std::vector<std::string> negatives;
  for (auto t : train.codes)
    if (!values[t].boolean) negatives.push_back(labels.value(t));
  std::sort(negatives.begin(), negatives.end());
  return negatives;
}

// The distinct integer labels of the training rows, in increasing order.
std::vector<std::string> integer_classes(const TrainLabels& train, const std::vector<LabelValue>& values) {
  std::map<std::int32_t, bool> distinct;
  for (auto t : train.codes) distinct[values[t].integer] = true;
  std::vector<std::string> classes;
  for (const auto& entry : distinct) classes.push_back(std::to_string(entry.first));
  return classes;
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
  const TrainLabels train(labels, in_train);

  if (o.positive) {
    type_ = LabelType::Boolean;
    const std::uint32_t pos = positive_code(labels, train, *o.positive);
    positive_ = labels.value(pos);
    const bool one_vs_rest = o.one_vs_rest || train.codes.size() > 2;  // any other label is simply negative
    for (std::uint32_t c = 0; c < n; ++c) {
      known_[c] = one_vs_rest || train.equivalent(c).has_value();
      values_[c].boolean = train.same(c, pos);
    }
    const std::vector<std::string> negatives = sorted_negatives(labels, train, values_);
    classes_ = {positive_};
    classes_.insert(classes_.end(), negatives.begin(), negatives.end());
    return;
  }

  if (train.distinct() > o.max_classes) too_many_classes(train.sorted, o.max_classes);
  const bool plus_minus_one = train.all_numbers_are([](double v) { return v == 1.0 || v == -1.0; });
  const bool integers = train.all_numbers_are([](double v) {
    return v == std::trunc(v) && std::abs(v) <= std::numeric_limits<std::int32_t>::max();
  });
  type_ = plus_minus_one ? LabelType::Boolean : integers ? LabelType::Integer : LabelType::Text;
  for (std::uint32_t c = 0; c < n; ++c) {
    const auto t = train.equivalent(c);
    if (!t) continue;
    known_[c] = true;
    values_[c].boolean = plus_minus_one && *train.number[*t] > 0;
    values_[c].integer = integers ? static_cast<std::int32_t>(*train.number[*t]) : 0;
    values_[c].text = labels.value(*t);
  }
  if (plus_minus_one) {
    positive_ = "+1";
    classes_ = {"+1", "-1"};
  } else if (integers) {
    classes_ = integer_classes(train, values_);
  } else {
    classes_ = train.sorted;
  }
  if (type_ != LabelType::Boolean && classes_.size() > o.max_classes) too_many_classes(classes_, o.max_classes);
}

std::vector<std::string> LabelEncoder::stored_classes() const {
  return type_ == LabelType::Boolean ? std::vector<std::string>{"false", "true"} : classes_;
}

std::vector<std::string> LabelEncoder::negative_labels() const {
  if (type_ != LabelType::Boolean || classes_.empty()) return {};
  return {classes_.begin() + 1, classes_.end()};
}

// The labels mapped to false: the one other training label, or (one-vs-rest)
// every label but the positive one, with the first few of the training rows.
std::string LabelEncoder::describe_negatives() const {
  const std::vector<std::string> negatives = negative_labels();
  if (negatives.size() == 1) return negatives[0];
  if (negatives.empty()) return "every other label";
  std::string some;
  for (std::size_t i = 0; i < negatives.size() && i < 3; ++i) some += (i ? ", " : "") + negatives[i];
  return "every other label (" + std::to_string(negatives.size()) + " in train: " + some +
         (negatives.size() > 3 ? ", ...)" : ")");
}

std::string LabelEncoder::describe_type() const {
  switch (type_) {
    case LabelType::Boolean: return "boolean, true = " + positive_ + ", false = " + describe_negatives();
    case LabelType::Integer: return "integer";
    case LabelType::Text: return "text";
  }
  return "";
}

}  // namespace dptrain::loader
