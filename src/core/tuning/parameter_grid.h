// A grid over any algorithm's hyperparameters (dp_tune's `grid` argument):
// a JSON object from a parameter name to the list of its candidate values,
//
//   {"learning_rate": [0.001, 0.01], "clip_norm": [0.5, 1], "batch_size": [250]}
//
// Names of dp_train arguments (lambda, epochs, batch_size, learning_rate,
// schedule, huber_h, radius) set that argument; every other name is a key of
// `options` (clip_norm, momentum, steps, ...) that the algorithm's own checks
// accept or refuse. Names that are privacy or data choices (epsilon, delta,
// seed, algorithm, loss, classes, options.tolerance) cannot be tuned.
//
// The grid is public: its points are chosen before any data is read.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/training/config.h"

namespace dptrain::tuning {

constexpr std::size_t kMaxGridPoints = 1000;

class ParameterGrid {
 public:
  // Error(InvalidParameter) unless `grid` is a non-empty object of non-empty
  // lists of distinct scalars (numbers, strings, booleans) with names that may
  // be tuned, and at most kMaxGridPoints points.
  static ParameterGrid parse(const nlohmann::json& grid);

  std::size_t size() const { return size_; }
  // Point i (0 <= i < size()) as {name: value}; the last name varies fastest.
  nlohmann::json point(std::size_t i) const;
  nlohmann::json to_json() const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<nlohmann::json>> values_;
  std::size_t size_ = 0;
};

// `base` with the point's values set (arguments or options); Error(InvalidParameter)
// for a value of the wrong type (e.g. epochs 2.5). The algorithm's checks still apply.
TrainingConfig apply_point(const TrainingConfig& base, const nlohmann::json& point);

// "lambda = 0.001, options.clip_norm = 1" for messages.
std::string describe_point(const nlohmann::json& point);

}  // namespace dptrain::tuning
