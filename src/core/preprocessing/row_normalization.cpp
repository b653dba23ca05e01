#include "core/preprocessing/row_normalization.h"

#include <Eigen/Core>
#include <limits>

#include "core/error.h"

namespace dptrain::preprocessing {

RowNormalization parse_row_normalization(const std::string& name) {
  if (name == "l2") return RowNormalization::UnitL2;
  if (name == "clip") return RowNormalization::Clip;
  if (name == "none") return RowNormalization::None;
  fail(ErrorKind::InvalidParameter, "unknown row normalization \"" + name + "\"", {},
       "Use l2 (divide each row by its norm), clip (only rows of norm > 1) or none.");
}

const char* row_normalization_name(RowNormalization n) {
  switch (n) {
    case RowNormalization::UnitL2: return "l2";
    case RowNormalization::Clip: return "clip";
    case RowNormalization::None: return "none";
  }
  return "?";
}

double normalize_row(double* x, std::size_t n, RowNormalization how) {
  Eigen::Map<Eigen::VectorXd> v(x, static_cast<Eigen::Index>(n));
  const double norm = v.norm();
  // x / ||x|| has norm 1 only up to rounding, and a norm recomputed later
  // (another summation order) can come out as 1 + a few ulps. Aim a hair
  // below 1 instead: a computed sum of n squares is off by at most about
  // n * eps relative, so (1 - (n + 4) eps) keeps every computed norm <= 1.
  // (That changes x by ~1e-12 relative at most: nothing a model can see.)
  const double target = 1.0 - (static_cast<double>(n) + 4.0) * std::numeric_limits<double>::epsilon();
  if (how == RowNormalization::UnitL2 && norm > 0) v *= target / norm;
  if (how == RowNormalization::Clip && norm > target) v *= target / norm;
  return norm;
}

}  // namespace dptrain::preprocessing
