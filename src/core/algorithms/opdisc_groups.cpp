#include "core/algorithms/opdisc_groups.h"

#include <cmath>
#include <map>
#include <string>

#include "core/error.h"
#include "core/engine/table_changed.h"

namespace dptrain::opdisc {
namespace {

bool is_count(double v) { return v >= 0 && v <= 9.0e15 && v == std::floor(v); }

[[noreturn]] void malformed(const std::string& what) {
  fail(ErrorKind::Internal, "malformed grouping-pass result: " + what);
}

// The statement marks a row with a NaN or infinite feature by NaN (the
// epoch aggregates' error and SQLSTATE).
[[noreturn]] void non_finite_feature() {
  throw Error(ErrorKind::InvalidData, "feature array contains a non-finite value (NaN or infinity)", {},
              "Remove or repair rows with NaN or infinite features before training.",
              sqlstate::kFloatingPointException);
}

}  // namespace

GroupedRows parse_groups(const double* r, std::size_t len, int dim, std::int64_t rows, long max_groups) {
  if (r == nullptr || len < kHeader || !is_count(r[0]) || !is_count(r[1])) malformed("no header");
  const auto count = static_cast<std::int64_t>(r[0]);
  if (count > max_groups)
    fail(ErrorKind::ProgramLimit,
         "the table has more than " + std::to_string(max_groups) + " distinct feature vectors",
         "OPDisc's exact oracle has one indicator per distinct (binarized) feature vector and label.",
         "Use fewer or coarser binary features.");
  const std::size_t block = static_cast<std::size_t>(dim) + 2;
  if (len != kHeader + static_cast<std::size_t>(count) * block) malformed("wrong length");
  GroupedRows out;
  out.dim = dim;
  out.binarized = static_cast<std::int64_t>(r[1]);
  std::int64_t total = 0;
  for (std::int64_t g = 0; g < count; ++g) {
    const double* b = r + kHeader + static_cast<std::size_t>(g) * block;
    Group group;
    for (int j = 0; j < dim; ++j) {
      if (b[j] == 1) group.ones.push_back(j);
      else if (std::isnan(b[j])) non_finite_feature();
      else if (b[j] == -1)
        throw Error(ErrorKind::InvalidData, "feature array must not contain NULL elements", {},
                    "Remove or repair rows with NULL features before training.", sqlstate::kNullValueNotAllowed);
      else if (b[j] != 0) malformed("a feature value that is not 0 or 1");
    }
    if (!is_count(b[dim]) || !is_count(b[dim + 1]) || b[dim] + b[dim + 1] < 1) malformed("bad counts");
    group.positives = static_cast<std::int64_t>(b[dim]);
    group.negatives = static_cast<std::int64_t>(b[dim + 1]);
    total += group.positives + group.negatives;
    out.groups.push_back(std::move(group));
  }
  if (total != rows || out.binarized > rows) refuse_changed_table("The grouping pass");
  return out;
}

std::vector<double> group_rows(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                               long max_groups) {
  // std::map orders float8 vectors lexicographically, as ORDER BY on float8[] does.
  std::map<std::vector<double>, std::pair<std::int64_t, std::int64_t>> groups;
  std::int64_t binarized = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<double> b(x[i].size());
    bool changed = false;
    for (std::size_t j = 0; j < b.size(); ++j) {
      // As the statement with parse_groups: a non-finite value is refused.
      if (!std::isfinite(x[i][j])) non_finite_feature();
      b[j] = x[i][j] >= kBinarizeThreshold ? 1.0 : 0.0;
      changed = changed || b[j] != x[i][j];
    }
    binarized += changed ? 1 : 0;
    auto& counts = groups[b];
    (y[i] == 1 ? counts.first : counts.second) += 1;
  }
  std::vector<double> out = {static_cast<double>(groups.size()), static_cast<double>(binarized)};
  if (static_cast<long>(groups.size()) > max_groups) return out;
  for (const auto& [b, counts] : groups) {
    out.insert(out.end(), b.begin(), b.end());
    out.push_back(static_cast<double>(counts.first));
    out.push_back(static_cast<double>(counts.second));
  }
  return out;
}

std::int64_t zero_one_errors(const GroupedRows& data, const std::vector<int>& k) {
  std::int64_t errors = 0;
  for (const Group& g : data.groups) {
    long score = 0;
    for (int j : g.ones) score += k[static_cast<std::size_t>(j)];
    errors += score >= 0 ? g.negatives : g.positives;
  }
  return errors;
}

double objective(const GroupedRows& data, const std::vector<int>& k, const std::vector<double>& eta,
                 int norm_squared) {
  const double root_k = std::sqrt(static_cast<double>(norm_squared));
  double linear = 0;
  long squared = 0;
  for (std::size_t j = 0; j < k.size(); ++j) {
    linear += eta[j] * k[j] / root_k;
    squared += static_cast<long>(k[j]) * k[j];
  }
  linear += eta[k.size()] * std::sqrt(1.0 - static_cast<double>(squared) / norm_squared);
  return static_cast<double>(zero_one_errors(data, k)) - linear;
}

}  // namespace dptrain::opdisc
