// A trained linear model (binary, or one-vs-all over K classes) with the
// metadata that makes its privacy claim checkable: algorithm, (epsilon,
// delta), every hyperparameter, the public facts of the data, whether the
// noise was seeded (then it is not private). JSON round-trip for storage in
// dptrain.models and for the CLI.
#pragma once

#include <Eigen/Core>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/loss/loss.h"

namespace dptrain {

// K x d weights, row k = model of class k (one row for a binary model).
using WeightMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Model {
  std::string name;
  std::string algorithm;
  LossKind loss = LossKind::Logistic;
  double huber_h = kDefaultHuberH;
  double feature_bound = 1.0;
  // 0: no intercept. b > 0: the model scores (clip_R(x), b) with R =
  // feature_bound, and its last weight column is the bias weight
  // (training/intercept.h); dim() counts that column.
  double intercept = 0.0;
  // Binary: {negative, positive} and one weight row. K >= 3 classes: K rows.
  std::vector<std::string> classes;
  WeightMatrix weights;
  std::optional<double> epsilon;
  std::optional<double> delta;
  bool seeded = false;
  nlohmann::json details = nlohmann::json::object();

  // A model that scores binarized features (OPDisc, docs/opdisc.md): every
  // feature x_j is read as 1 if x_j >= t and 0 otherwise, as in training.
  // The release records t in details.hyperparameters.binarize_threshold;
  // opdisc models stored before that field are binarized at 1/2 by
  // construction. nullopt: the features are scored as given.
  std::optional<double> binarize_threshold() const;

  int dim() const { return static_cast<int>(weights.cols()); }
  // The number of features a row to score has: dim() without the bias column.
  int features() const { return dim() - (intercept > 0 ? 1 : 0); }
  bool binary() const { return weights.rows() == 1; }

  nlohmann::json to_json() const;
  static Model from_json(const nlohmann::json& j);
};

}  // namespace dptrain
