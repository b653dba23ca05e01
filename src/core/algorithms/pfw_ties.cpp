#include "core/algorithms/pfw_ties.h"

namespace dptrain {

std::optional<std::string> pfw_tie_warning(const Model& m) {
  if (m.intercept > 0) return std::nullopt;
  const int d = m.features();
  if (d == 0) return std::nullopt;
  long fewest = d;
  for (Eigen::Index r = 0; r < m.weights.rows(); ++r) {
    long nonzero = 0;
    for (int j = 0; j < d; ++j) nonzero += m.weights(r, j) != 0.0 ? 1 : 0;
    fewest = std::min(fewest, nonzero);
  }
  if (2 * fewest > d) return std::nullopt;
  return "the model weights only " + std::to_string(fewest) + " of " + std::to_string(d) +
         " features (P-FW adds at most one per iteration) and has no intercept: a row without those "
         "features scores exactly 0, and a score of 0 is the positive class (binary; K classes: the first "
         "class). On sparse rows that may be most rows: train with intercept => true, or more iterations "
         "(docs/pfw.md)";
}

}  // namespace dptrain
