// algorithm => 'scs13': noisy mini-batch SGD of Song, Chaudhuri & Sarwate
// (GlobalSIP 2013), extended to k passes as in Bolt-on (Wu et al. 2017,
// §4.1); docs/whitebox.md.
//
// Every update adds noise Z_t to the sum of the batch's loss gradients
// inside the epoch aggregate:
//   epsilon-DP (delta = 0): Z_t with density prop. to exp(-(eps/k) ||z|| / Delta)
//                           (L2-Laplace), Delta = 2 L_x sqrt(K);
//   (epsilon, delta)-DP:    Z_t ~ N(0, sigma^2 I), sigma calibrated to
//                           (eps/k, delta/k) with sensitivity Delta (analytic
//                           Gaussian by default), or with options.accountant =
//                           'rdp' to the k-fold composition directly.
// Privacy: the batches of a pass partition the rows (one permutation, any
// data-independent order), so one pass is (eps/k[, delta/k])-DP by parallel
// composition, and k passes compose to (eps[, delta]).
// Steps: convex eta_t = eta / sqrt(t) (eta = learning_rate, default 1);
// strongly convex (lambda > 0) min(1/beta, 1/(gamma t)) with projection onto
// ||w|| <= R = 1/lambda after every update. Privacy does not depend on them.
#pragma once

#include "core/algorithms/algorithm.h"

namespace dptrain {

class Scs13 : public EpochAlgorithm {
 public:
  static constexpr double kDefaultLearningRate = 1.0;  // eta_t = 1 / sqrt(t)

  std::string name() const override { return "scs13"; }
  TrainingPlan plan(const TrainingConfig& config) const override;
  // Options and epsilon, before the charge.
  void check_arguments(const TrainingConfig& config) const override;
  // Its schedule for its lambda: before dp_train reads any row.
  void check_run_arguments(const TrainingConfig& config) const override;
  // All noise was added inside the epochs: nothing to do.
  void release(const TrainingConfig&, const TrainingPlan&, WeightMatrix&, privacy::RandomSource&) const override {}
};

}  // namespace dptrain
