// Planning a DP-SGD-family run from public inputs only (before any row is read): the
// sampling rate, the noise multiplier and its privacy account, the optimizer's parameters
// and the metadata the model records. Algorithms:
//   dpsgd, dpmomentum, dpadam, dpadamwosm, adadp   Mohapatra et al. 2022 App. A / J; Koskela-Honkela 2020
//   psgd    P-SGD as in the AMP paper (Iyengar et al. 2019, Alg. 2): dpsgd with an optional
//           projection onto ||w_k|| <= radius. Sound by default (Poisson lots, RDP-calibrated
//           noise). closed_form_noise = true takes the paper's noise instead,
//           sigma_avg = 4 C sqrt(T ln(1/delta)) / (n epsilon) on the averaged gradient, i.e.
//           noise multiplier 4 q sqrt(T ln(1/delta)) / epsilon: that formula is not an
//           accountant's bound, so the plan records "accounted": false and the RDP epsilon
//           that noise really gives (often far above the claimed epsilon).
// Privacy: add/remove-one adjacency; every lot (ADADP: both halves of every pair) is one
// step of the accountant. The row count n is treated as public, as everywhere in dptrain.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/dpsgd/lot_state.h"
#include "core/privacy/sampled_gaussian_account.h"

namespace dptrain::dpsgd {

struct DpSgdRequest {
  std::string algorithm = "dpsgd";
  std::int64_t rows = 0;  // n
  int dim = 0;
  int models = 1;  // K (1 = binary)
  LossKind loss = LossKind::Logistic;
  double huber_h = kDefaultHuberH;
  double expected_lot = 250;  // L: q = L / n
  std::int64_t steps = 0;     // T lots
  double clip_norm = 1;       // C
  // Exactly one of: a target epsilon (sigma calibrated), or a noise multiplier (epsilon reported).
  std::optional<double> epsilon;
  std::optional<double> noise_multiplier;
  double delta = 0;
  std::optional<double> learning_rate;  // required for dpsgd/psgd/dpmomentum; defaults below
  StepDecay decay = StepDecay::Constant;
  std::optional<double> momentum;       // required for dpmomentum
  double beta1 = 0.9, beta2 = 0.999, xi = 1e-8;
  std::optional<double> tolerance;      // ADADP tau; default sqrt(K d / (2 T)) (Mohapatra et al. 2022)
  double radius = 0;
  double lambda = 0;
  bool closed_form_noise = false;       // psgd only: NOT accounted
  privacy::RdpOptions rdp;
};

struct DpSgdPlan {
  LotConfig lots;
  double sampling_rate;  // q
  std::int64_t steps;    // T
  privacy::SampledGaussianAccount account;
  bool accounted;        // false only for psgd's closed-form noise
  double epsilon;        // the claim: account.epsilon, or the requested epsilon if not accounted
  double delta;
  nlohmann::json metadata;  // "privacy" and "hyperparameters" for the model's details
};

// Defaults: dpadam alpha 1e-3; dpadamwosm alpha = adam_wosm_step_size(sigma, C, L);
// adadp eta0 1e-3. Error(InvalidParameter) on anything inconsistent.
DpSgdPlan plan_dpsgd(const DpSgdRequest& request);

// The checks of plan_dpsgd that need no fact of the data (n, d, K): lot size > 0, C,
// delta, epsilon / noise multiplier, radius, lambda, optimizer constants, learning rate.
// `request.steps` 0 means "not known yet" (derived from n).
void validate_arguments(const DpSgdRequest& request);

// The AMP paper's P-SGD noise (Iyengar et al. 2019, Alg. 2, as a noise multiplier on the sum):
// 4 q sqrt(T ln(1/delta)) / epsilon.
double closed_form_psgd_noise_multiplier(double q, std::int64_t steps, double epsilon, double delta);

}  // namespace dptrain::dpsgd
