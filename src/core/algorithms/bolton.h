// algorithm => 'bolton': Bolt-on differential privacy (Wu, Li, Kumar,
// Chaudhuri, Jha, Naughton, SIGMOD 2017; docs/bolton.md).
// Ordinary permutation-SGD epochs (the engine's Bismarck aggregate, run
// noiselessly), then output perturbation once, calibrated to the
// L2-sensitivity of PSGD (src/core/privacy/bolton_sensitivity.h).
//
//   lambda = 0   convex (Algorithm 1): constant step eta = learning_rate or
//                1/sqrt(m) (Corollary 1), or schedule decreasing / sqrt
//                (Corollaries 2-3, options.schedule_c = c, default 0.5);
//                projection only if radius is given
//   lambda > 0   strongly convex (Algorithm 2): projection onto ||w|| <= R
//                after every update, R = radius or 1/lambda; step
//                min(1/beta, 1/(gamma t)) (Lemma 8), or constant
//                learning_rate <= 1/beta (Lemma 7)
//   delta 0/NULL pure epsilon-DP: "L2-Laplace" noise, ||v|| ~ Gamma(d, Delta/eps)
//   delta > 0    (epsilon, delta)-DP: Gaussian noise, sigma from the analytic
//                Gaussian mechanism (options.gaussian_calibration = 'analytic'
//                default | 'classic' (the paper's, epsilon < 1) | 'amp')
//   K classes    K one-vs-all models on the same rows: each gets (eps/K,
//                delta/K) and its own noise draw (basic composition, §0.2);
//                or, with options.multiclass_noise = 'joint' and delta > 0,
//                one Gaussian release of the K x d matrix at the full
//                (eps, delta) with sensitivity sqrt(K) Delta.
//
// Everything is decided in plan() from public inputs (n, d, K and the
// arguments); the number of epochs is fixed before training (docs/pitfalls.md §P3).
#pragma once

#include <string>

#include "core/algorithms/algorithm.h"

namespace dptrain {

// The noise release() adds, as recorded in plan.privacy["noise"].
struct BoltonNoise {
  enum class Distribution { L2Laplace, Gaussian };
  Distribution distribution = Distribution::L2Laplace;
  double sensitivity = 0.0;  // L2-sensitivity of what one draw covers (a model, or all K jointly)
  double epsilon = 0.0;      // per model, or the total for a joint release
  double delta = 0.0;        // likewise (Gaussian only)
  // L2Laplace: the Gamma scale Delta/epsilon of the norm; Gaussian: sigma.
  double scale = 0.0;

  nlohmann::json to_json() const;
  static BoltonNoise from_json(const nlohmann::json& j);
  // Adds one independent draw to every row (model) of `weights`.
  void add_to(WeightMatrix& weights, privacy::RandomSource& rng) const;
};

class Bolton : public EpochAlgorithm {
 public:
  std::string name() const override { return "bolton"; }
  // Per-shard PSGD with output noise once (docs/distributed.md §2, Wu et al. 2017 Thm 1 per shard).
  bool trains_on_shards() const override { return true; }
  TrainingPlan plan(const TrainingConfig& config) const override;
  // epsilon, the loss and the options, before the charge (not the schedule:
  // the defaults may still fill in its learning_rate; nor what depends on
  // lambda, which dp_tune's grid sets per candidate).
  void check_arguments(const TrainingConfig& config) const override;
  // The run's schedule for its lambda (choose_schedule), the options that
  // depend on it, and a constant step against 2/beta (convex, Lemma 1) or
  // 1/beta (strongly convex, Lemma 2): before dp_train reads any row.
  void check_run_arguments(const TrainingConfig& config) const override;
  // The same noise formula as plan() (mechanism, epsilon/delta split, joint
  // sqrt(K) rule, Gaussian calibration), for the smaller bound.
  bool calibrate_output_noise(const TrainingConfig& config, TrainingPlan& plan, double sensitivity,
                              const std::string& rule) const override;
  void release(const TrainingConfig& config, const TrainingPlan& plan, WeightMatrix& weights,
               privacy::RandomSource& rng) const override;
};

}  // namespace dptrain
