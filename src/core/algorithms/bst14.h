// algorithm => 'bst14': noisy SGD on uniformly subsampled mini-batches of
// Bassily, Smith & Thakurta (FOCS 2014), with the constant-pass extension of
// Bolt-on (Wu et al. 2017, Algorithms 4 and 5);
// docs/whitebox.md (every constant and its derivation).
//
// (epsilon, delta)-DP only (it rests on advanced composition). With
// T = k ceil(m/b) updates:
//   delta' = delta / 2, delta_1 = delta / (2T);
//   epsilon_1 = the per-update budget whose T-fold advanced composition is
//     epsilon (inverse by bisection, privacy/composition.h);
//   q = b / m; epsilon_0 = ln(1 + (e^epsilon_1 - 1) / q), delta_0 = delta_1 / q:
//     the inverse of amplification by subsampling without replacement under
//     replace-one adjacency (Balle, Barthe & Gaboardi 2018, Thm 10);
//     options.amplification = 'linear' uses BST14's epsilon_0 = min(1, epsilon_1 / (2q))
//     instead (reconstructed in docs/whitebox.md);
//   sigma = Gaussian noise on the batch's gradient sum for (epsilon_0, delta_0)
//     with sensitivity 2 L_x sqrt(K) (analytic calibration by default).
// Every batch is b distinct rows drawn uniformly at random from fresh secret
// randomness (core/sgd/batch_sampler.h), never a slice of a permutation
// (docs/pitfalls.md §P9). Steps: strongly convex (lambda > 0) min(1/beta, 1/(gamma t)),
// projection onto R = 1/lambda; convex eta_t = 2R / (G sqrt(t)),
// G = sqrt(L_x^2 + d sigma^2 / b^2), projection onto the radius R the user
// must give.
#pragma once

#include "core/algorithms/algorithm.h"
#include "core/privacy/gaussian_calibration.h"

namespace dptrain {

// The budget arithmetic, separately testable.
struct Bst14Budget {
  std::int64_t updates = 0;    // T
  double delta_prime = 0;      // delta / 2 (advanced composition slack)
  double epsilon_step = 0;     // epsilon_1: per update, after amplification
  double delta_step = 0;       // delta_1 = delta / (2T)
  double sampling_rate = 0;    // q = b / m
  double epsilon_0 = 0;        // per update, before amplification
  double delta_0 = 0;          // delta_1 / q
  double sigma = 0;            // std of the noise on the batch gradient SUM
};

enum class Bst14Amplification { Exact, Linear };

Bst14Budget bst14_budget(std::int64_t rows, std::int64_t batch_size, int epochs, double epsilon, double delta,
                         double sensitivity, privacy::GaussianCalibration calibration,
                         Bst14Amplification amplification);

class Bst14 : public EpochAlgorithm {
 public:
  std::string name() const override { return "bst14"; }
  TrainingPlan plan(const TrainingConfig& config) const override;
  // Options, epsilon, delta > 0, no reshuffle: before the charge (the radius
  // a convex run needs depends on lambda, which dp_tune's grid may set).
  void check_arguments(const TrainingConfig& config) const override;
  // The radius a convex run (lambda = 0) needs, and its schedule: before
  // dp_train reads any row.
  void check_run_arguments(const TrainingConfig& config) const override;
  void release(const TrainingConfig&, const TrainingPlan&, WeightMatrix&, privacy::RandomSource&) const override {}
};

}  // namespace dptrain
