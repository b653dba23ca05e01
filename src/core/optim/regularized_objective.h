// F(theta) = S(theta)/n + (mu/2)||theta||^2 + <b, theta>, assembled from the
// sums a gradient pass returns over the n rows (S = sum of per-row losses,
// its gradient and Hessian) and the data-independent terms the run owns:
//   AMP's L_priv   mu = Lambda/n, b = b1 (Iyengar et al. 2019, Alg. 1 step 4)
//   the optimum    mu = lambda,   b = 0
// It also bounds the rounding error of the assembled value and gradient,
// assuming the sums were accumulated with compensated (Neumaier) summation
// and each row's gradient has norm <= row_gradient_bound (L for clipped
// rows of a GLM with |l'| <= 1). With u the unit roundoff, per component the
// compensated sum is off by <= 2u|S_j| + O(n u^2) sum_i |g_ij| (Higham,
// Accuracy and Stability of Numerical Algorithms, 2nd ed., §4.3), each
// row's gradient by u|g_ij|, and the three terms add a few u each; we take
//   gradient_error = 8u (||S||/n + mu||theta|| + ||b|| + L) + 2 n u^2 L,
//   value_error    = 16u (|S|/n + (mu/2)||theta||^2 + |<b, theta>| + 1 + L ||theta||)
// (a row's loss is <= l(0) + L ||theta|| and l(0) <= 1 for logistic and Huber).
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "core/optim/evaluation.h"

namespace dptrain::optim {

// What a gradient pass returns for one model at one point.
struct DataSums {
  std::int64_t rows = 0;
  double loss_sum = 0;
  Eigen::VectorXd gradient_sum;
  Eigen::MatrixXd hessian_sum;  // empty unless asked for
};

class RegularizedObjective {
 public:
  // `linear` empty = zero. `rows` is the n the plan was made for: a pass
  // that counts another number of rows (the table changed) is an error.
  RegularizedObjective(std::int64_t rows, double l2_coefficient, Eigen::VectorXd linear,
                       double row_gradient_bound);

  Evaluation evaluate(const Eigen::VectorXd& theta, const DataSums& sums) const;

  std::int64_t rows() const { return rows_; }
  double l2_coefficient() const { return mu_; }

 private:
  std::int64_t rows_;
  double mu_;
  Eigen::VectorXd linear_;
  double row_gradient_bound_;
};

}  // namespace dptrain::optim
