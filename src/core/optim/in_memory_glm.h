// The data side of a gradient pass, in memory: for rows held in RAM, the
// sums over rows of a GLM loss, its gradient and (optionally) its Hessian at
// a point, per one-vs-all model. Loss and gradient sums are compensated
// (Neumaier), as regularized_objective.h assumes. For tests, benchmarks and
// in-memory drivers; the database computes the same sums in its gradient
// aggregate.
//
// Rows are clipped once, on construction, to ||x|| <= clip_bound (AMP's
// "sample clipping": x * min(1, L/||x||), a per-row map, so it keeps DP).
// Labels are class indices: a binary problem (models = 1) has classes 0
// (y = -1) and 1 (y = +1); with K >= 3 classes model k sees y = +1 iff the
// class is k.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "core/loss/loss.h"
#include "core/optim/regularized_objective.h"

namespace dptrain::optim {

class Lockstep;

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class InMemoryGlm {
 public:
  // clip_bound 0 = keep the rows as given.
  InMemoryGlm(RowMatrix x, std::vector<int> classes, int models, LossKind loss, double huber_h, double clip_bound);

  std::int64_t rows() const { return x_.rows(); }
  int dim() const { return static_cast<int>(x_.cols()); }
  int models() const { return models_; }
  const RowMatrix& features() const { return x_; }  // after clipping

  // y in {-1, +1} of row i for model k.
  double label(std::int64_t i, int model) const {
    const int positive = models_ == 1 ? 1 : model;
    return classes_[static_cast<std::size_t>(i)] == positive ? 1.0 : -1.0;
  }

  // Sums over all rows of l(y <theta, x>), its gradient and, if asked, Hessian.
  DataSums sums(int model, const Eigen::VectorXd& theta, bool hessian) const;

 private:
  RowMatrix x_;
  std::vector<int> classes_;
  int models_;
  LossKind loss_;
  double huber_h_;
};

// The in-memory driver loop: runs `lockstep` to its end, evaluating model
// k's objective objectives[k] on `data` at each pass (one point per model).
// Returns the number of passes.
int run_in_memory(Lockstep& lockstep, const InMemoryGlm& data,
                  const std::vector<RegularizedObjective>& objectives);

// x * min(1, bound / ||x||) for each row of x, in place.
void clip_rows(RowMatrix& x, double bound);

}  // namespace dptrain::optim
