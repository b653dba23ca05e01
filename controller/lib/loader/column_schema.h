// How the columns of a delimited file become features (the standard
// preprocessing of shared/data/README.md):
//   * numeric columns are min-max scaled into [0, 1] with bounds the user
//     gives (--bounds) or, failing that, the min and max of the TRAINING
//     rows; values outside the bounds (test rows, or user bounds that were
//     too narrow) are clipped to [0, 1];
//   * categorical columns are one-hot encoded, one 0/1 feature per category,
//     with the categories the user gives (--categories) or, failing that,
//     every value seen in the kept train and test rows, sorted; a missing or
//     unlisted value encodes as all zeros.
// A column is numeric when every value it holds is a number, unless forced
// with --numeric / --categorical.
//
// Privacy: bounds and category lists read from the data depend on every row,
// so they are outside the differential-privacy guarantee of the training
// algorithms (DESIGN.md, "Privacy engineering rules"); notices() says which
// columns are affected, and user-given bounds and lists avoid it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loader/csv_table.h"

namespace dptrain::loader {

struct Bounds {
  double lo = 0, hi = 1;
};

struct SchemaOptions {
  std::vector<std::string> categorical;  // columns forced categorical
  std::vector<std::string> numeric;      // columns forced numeric
  std::map<std::string, Bounds> bounds;  // user bounds per column; "*" = every numeric column
  std::map<std::string, std::vector<std::string>> categories;  // user category lists
};

// "age=17:90,fnlwgt=0:1.5e6" or "*=0:16" -> bounds (repeatable; throws InvalidParameter).
void parse_bounds_spec(const std::string& spec, std::map<std::string, Bounds>& out);
// "sex=Female|Male" -> one category list.
void parse_categories_spec(const std::string& spec, std::map<std::string, std::vector<std::string>>& out);

enum class BoundsOrigin { User, Data };

struct ColumnEncoding {
  std::string name;
  std::size_t column = 0;  // index into CsvTable::values and the per-row codes
  bool numeric = false;
  std::size_t offset = 0;  // first feature of this column
  std::size_t width = 0;   // 1 for numeric, #categories for categorical
  // numeric
  std::vector<double> number;  // value of each dictionary code
  Bounds bounds;
  BoundsOrigin origin = BoundsOrigin::Data;
  std::uint64_t clipped[2] = {0, 0};  // train, test values outside the bounds
  // categorical
  std::vector<std::string> categories;
  std::vector<std::int32_t> slot;  // category index of each dictionary code, -1: none
  bool user_categories = false;
  std::uint64_t unlisted = 0;  // cells whose value is not in a user-given list
  // Set when the column was one-hot encoded only because of one or two
  // non-number values among many numbers (an "NA" marker, a typo), or because
  // its numbers have a comma for the point ("5,1"): what notices() says about
  // it, naming the value and where it is.
  std::string almost_numeric;
};

class ColumnSchema {
 public:
  ColumnSchema(const CsvTable& table, const SchemaOptions& options);

  std::size_t dims() const { return dims_; }
  const std::vector<ColumnEncoding>& columns() const { return columns_; }
  // `codes`: one row of CsvPart::codes; writes dims() features.
  void encode(const std::uint32_t* codes, double* out) const;
  std::vector<std::string> feature_names() const;
  nlohmann::json describe() const;
  std::vector<std::string> notices() const;

 private:
  std::vector<ColumnEncoding> columns_;
  std::size_t dims_ = 0;
};

}  // namespace dptrain::loader
