// What a reverse-communication optimizer is given at each point it asks
// about: the value, gradient and (when asked) Hessian of the objective F,
// already complete (data sums plus the data-independent terms; see
// regularized_objective.h). The optimizer never calls a function itself.
#pragma once

#include <Eigen/Core>

namespace dptrain::optim {

struct Evaluation {
  double value = 0;           // F(theta)
  Eigen::VectorXd gradient;   // grad F(theta)
  Eigen::MatrixXd hessian;    // grad^2 F(theta) if it was asked for, else empty
  // Bounds on the floating-point error of `value` and of ||gradient||:
  // differences of F below value_error mean nothing, and a gradient is
  // certified small only if ||gradient|| + gradient_error <= tolerance.
  double value_error = 0;
  double gradient_error = 0;
};

}  // namespace dptrain::optim
