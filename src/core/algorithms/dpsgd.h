// algorithm => 'dpsgd' | 'psgd' | 'dpmomentum' | 'dpadam' | 'dpadamwosm' | 'adadp':
// the DP-SGD family (Abadi et al. 2016, Alg. 1; the optimizers of Mohapatra et al. 2022 App. A/J;
// ADADP of Koskela & Honkela 2020; P-SGD of Iyengar et al. 2019, Alg. 2) as a run of
// the engine: Poisson lots drawn from the run's secret key, per-example gradients of
// all K one-vs-all models clipped jointly to C, N(0, (sigma C)^2 I) on every lot's
// sum (empty lots too), divided by the expected lot size q n, then the optimizer.
// sigma is the smallest noise multiplier with RDP-epsilon(q, sigma, T, delta) <= epsilon
// (privacy/sampled_gaussian_account.h); every lot is one step of the accountant.
// Everything is in docs/dpsgd.md; the mathematics in src/core/dpsgd/.
//
// dp_train's arguments (defaults that work with only epsilon and delta given):
//   batch_size     the expected lot size L (q = L / n)                  default 50
//   epochs         T = epochs * ceil(n / L) lots, i.e. `epochs` passes in
//                  expectation (adadp: rounded up to even)               default 10
//   learning_rate  dpsgd/psgd 0.5, dpmomentum 0.05, dpadam 1e-3, adadp eta0 1e-3,
//                  dpadamwosm 1e-3 / (sigma C / L + 1e-8) (Mohapatra et al. 2022 Alg. 2)
//   schedule       dpsgd/psgd/dpmomentum: constant (default) | inverse_sqrt (alpha / sqrt t)
//   radius         projection of every w_k onto ||w_k|| <= R after every lot (psgd's L2
//                  ball; any member may use it); lambda > 0 needs it for psgd
//   lambda         L2 regularization: + lambda theta on the noisy gradient
//   options        steps (T, overrides epochs), clip_norm (C, default 1), momentum
//                  (dpmomentum, 0.9), beta1, beta2, xi (Adam), adadp_tolerance (tau,
//                  default sqrt(K d / (2 T))), conversion (improved | classic),
//                  lots_per_query (default: about 250,000 expected rows per query),
//                  closed_form_noise (psgd, seeded runs only: NOT accounted)
#pragma once

#include "core/algorithms/algorithm.h"
#include "core/dpsgd/plan.h"

namespace dptrain {

class DpSgdFamily : public Algorithm {
 public:
  explicit DpSgdFamily(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  TrainingPlan plan(const TrainingConfig& config) const override;
  std::unique_ptr<Run> start(const TrainingConfig& config) const override;
  // Everything but the facts of the data (options, clip norm, lot size, delta,
  // optimizer constants): refused before the budget is charged.
  void check_arguments(const TrainingConfig& config) const override;
  // The RDP account of the Poisson-subsampled Gaussian is under add/remove-one
  // (Mironov, Talwar & Zhang 2019; sensitivity C of the lot's clipped sum).
  privacy::Adjacency adjacency() const override { return privacy::Adjacency::AddRemoveOne; }

 private:
  std::string name_;
};

// The members' names.
const std::vector<std::string>& dpsgd_family();

// The plan request of `config` (public inputs only; Error(InvalidParameter) on bad ones).
dpsgd::DpSgdRequest dpsgd_request(const TrainingConfig& config);

// What plan() reports for a DP-SGD plan: the privacy spent (the accountant's epsilon;
// for closed-form noise, not accounted, the accountant's epsilon of that noise), the
// privacy record and the warnings.
TrainingPlan training_plan(const TrainingConfig& config, const dpsgd::DpSgdPlan& plan);

// Lots per query: options.lots_per_query, else ceil(250000 / L), at most T.
std::uint64_t lots_per_query(const TrainingConfig& config, const dpsgd::DpSgdPlan& plan);

}  // namespace dptrain
