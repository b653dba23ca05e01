// The label column y of a loaded table, and its SQL type:
//   * boolean  -- a binary task: --positive VALUE gives true for that label
//                 and false for every other (KDD Cup: normal vs the 22
//                 attacks), or the labels are exactly -1/+1 (LIBSVM);
//   * integer  -- every label is an integer (MNIST digits 0..9);
//   * text     -- otherwise (multiclass by name).
// The label set comes from the training rows. A test label the training
// rows never show is an error ("unknown label"), except in a one-vs-rest
// task (--positive with more than two training labels), where it is simply
// negative.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loader/dictionary.h"

namespace dptrain::loader {

enum class LabelType { Boolean, Integer, Text };
const char* label_sql_type(LabelType t);

struct LabelOptions {
  std::optional<std::string> positive;
  std::size_t max_classes = 100;
  // With `positive`: every other label is negative even if the training
  // labels are only the positive one (scoring with a load spec that keeps
  // the negative labels of a one-vs-rest task to itself, load_spec.h).
  bool one_vs_rest = false;
};

struct LabelValue {
  bool boolean = false;
  std::int32_t integer = 0;
  std::string text;
};

class LabelEncoder {
 public:
  // `in_train[c]`: label code c occurs in a training row. Throws
  // InvalidParameter if --positive names no training label and
  // ProgramLimit beyond max_classes.
  LabelEncoder(const Dictionary& labels, const std::vector<bool>& in_train, const LabelOptions& options);

  LabelType type() const { return type_; }
  bool known(std::uint32_t code) const { return known_[code]; }
  const LabelValue& value(std::uint32_t code) const { return values_[code]; }
  // Training classes, sorted (numerically for integers); for boolean the
  // labels mapped to true and to false.
  const std::vector<std::string>& classes() const { return classes_; }
  const std::string& positive() const { return positive_; }  // boolean only
  // The classes of y as stored: false, true for a boolean label (classes()
  // may list many labels mapped to false, KDD's attacks), else classes().
  std::vector<std::string> stored_classes() const;
  std::size_t class_count() const { return stored_classes().size(); }
  // Boolean: the training labels mapped to false, sorted (empty otherwise).
  std::vector<std::string> negative_labels() const;
  // "boolean, true = normal, false = every other label (22 in train: back, ...)".
  std::string describe_type() const;

 private:
  std::string describe_negatives() const;
  LabelType type_ = LabelType::Text;
  std::vector<bool> known_;
  std::vector<LabelValue> values_;
  std::vector<std::string> classes_;
  std::string positive_;
};

}  // namespace dptrain::loader
