#include "core/sgd/projection.h"

#include <Eigen/Core>
#include <cmath>

namespace dptrain {

void project_l2_ball(double* w, std::size_t n, double radius) {
  Eigen::Map<Eigen::VectorXd> v(w, static_cast<Eigen::Index>(n));
  const double norm = v.norm();
  if (norm > radius) v *= radius / norm;
}

}  // namespace dptrain
