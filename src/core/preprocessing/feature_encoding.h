// Features from ordinary columns: how numeric, boolean and text columns of a
// row become one feature vector, as `dptrain load` encodes files
// (controller/lib/loader/column_schema.h):
//   * numeric: clipped to the PUBLIC bounds [lo, hi] the user declares, then
//     scaled into [0, 1];
//   * boolean: 1 for true, 0 for false;
//   * text (categorical): one 0/1 feature per DECLARED category; a NULL or an
//     undeclared value encodes as all zeros;
// then the row is normalized (l2: x / ||x||, or clip: x / max(1, ||x||)), so
// ||x|| <= 1 as every algorithm's analysis assumes.
//
// Privacy: each step looks at one row and at public declarations only, so
// neighbouring tables stay neighbours and the training algorithm's guarantee
// holds for the encoded rows. Categories read from the data are not public:
// an encoding records `categories_from_data` for such columns, and whoever
// builds it must say so (a NOTICE; the model's metadata keeps the flag).
//
// The encoding is stored with a model (details->'encoding', docs/encoding.md),
// so predictions on raw rows apply the very same map.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/preprocessing/row_normalization.h"

namespace dptrain::preprocessing {

enum class ColumnKind { Numeric, Boolean, Categorical };

struct EncodedColumn {
  std::string name;
  ColumnKind kind = ColumnKind::Numeric;
  double lo = 0, hi = 1;                // numeric only: lo < hi, both finite
  std::vector<std::string> categories;  // categorical only: distinct, in feature order
  bool categories_from_data = false;    // categorical: read from the data (outside the guarantee)
  int width() const { return kind == ColumnKind::Categorical ? static_cast<int>(categories.size()) : 1; }
};

class FeatureEncoding {
 public:
  // Validates (names non-empty and distinct, bounds finite with lo < hi,
  // categories distinct and at least one, l2 or clip); throws
  // dptrain::Error(InvalidParameter) with a hint otherwise.
  FeatureEncoding(std::vector<EncodedColumn> columns, RowNormalization normalization);

  // {"columns": [{"name", "type": "numeric"|"boolean"|"categorical",
  //   "bounds": [lo, hi] | "categories": [...], "categories_from_data"}], "normalize": "l2"|"clip"}
  static FeatureEncoding from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;

  int dim() const { return dim_; }
  const std::vector<EncodedColumn>& columns() const { return columns_; }
  RowNormalization normalization() const { return normalization_; }
  bool any_categories_from_data() const;
  // One name per feature: "age", "sex=Female", ...
  std::vector<std::string> feature_names() const;

  // Encodes one row into out[0..dim()): values[i] is the text form of column
  // i (PostgreSQL's output: 't'/'true', '17', '3.5e2'), std::nullopt for NULL.
  // Returns false when the row has no features (a NULL or NaN numeric or
  // boolean: the caller treats the row as NULL features). Throws
  // Error(InvalidData) for a value that is not a number / a boolean.
  bool encode(const std::vector<std::optional<std::string_view>>& values, double* out) const;

 private:
  std::vector<EncodedColumn> columns_;
  RowNormalization normalization_;
  int dim_ = 0;
};

const char* column_kind_name(ColumnKind k);

}  // namespace dptrain::preprocessing
