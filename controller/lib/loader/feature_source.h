// What every input format (CSV, LIBSVM, IDX) hands to the load pipeline:
// rows of a train and a test part, each with features already scaled to
// [0, 1] (or as given, for LIBSVM) and a label code into a dictionary of
// normalized label strings. The pipeline (dataset.h) then encodes labels,
// optionally projects, and normalizes each row.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loader/dictionary.h"
#include "loader/test_rows.h"

namespace dptrain::loader {

class FeatureSource {
 public:
  virtual ~FeatureSource() = default;

  virtual std::size_t dims() const = 0;
  virtual std::size_t rows(Part p) const = 0;
  // Writes the dims() features of row i of part p to out[0..dims()).
  virtual void features(Part p, std::size_t i, double* out) const = 0;
  virtual std::uint32_t label_code(Part p, std::size_t i) const = 0;
  virtual RowOrigin origin(Part p, std::size_t i) const = 0;
  virtual const std::string& file(Part p) const = 0;
  virtual const Dictionary& labels() const = 0;
  // Names of the features when they mean something (CSV columns, one-hot
  // "column=value"); empty for LIBSVM and IDX.
  virtual std::vector<std::string> feature_names() const { return {}; }
  // How the features were made (format, scaling bounds and their origin,
  // category lists, ...): recorded in the table comment.
  virtual nlohmann::json describe() const = 0;
  // Rows skipped (e.g. rows with missing values under --drop-missing).
  virtual std::uint64_t dropped(Part p) const { return 0; }

  // Messages for the user: which bounds/category lists come from the data
  // and are therefore outside the privacy guarantee.
  const std::vector<std::string>& notices() const { return notices_; }

 protected:
  std::vector<std::string> notices_;
};

}  // namespace dptrain::loader
