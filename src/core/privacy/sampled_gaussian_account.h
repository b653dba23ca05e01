// The privacy record of a Poisson-subsampled Gaussian run (DP-SGD and its family): the
// accountant's inputs and its answer, stored with the model so that anyone can recompute
// the claim. T lots, each including every row independently with probability q; each
// releases the sum of per-example contributions clipped to L2 norm C (add/remove-one
// sensitivity C) plus N(0, (sigma C)^2 I). Accountant: RDP of the sampled Gaussian
// (Mironov, Talwar & Zhang 2019) composed over T, converted to (epsilon, delta)-DP.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/privacy/rdp_sampled_gaussian.h"

namespace dptrain::privacy {

struct SampledGaussianAccount {
  double sampling_rate = 0;     // q
  double noise_multiplier = 0;  // sigma: noise std on the clipped sum, in units of C
  double clip_norm = 0;         // C, the sum's add/remove-one L2 sensitivity
  std::int64_t steps = 0;       // T: every noisy lot released
  double epsilon = 0;           // the accountant's epsilon for (q, sigma, T, delta)
  double delta = 0;
  double optimal_order = 0;
  RdpOptions rdp;               // orders, conversion, adjacency
  // The optimum is the grid's largest order: epsilon is limited by the grid (an upper
  // bound still, but larger orders might certify less).
  bool at_largest_order() const;
};

// Epsilon of a run with noise multiplier sigma (validates like sampled_gaussian_epsilon;
// clip_norm > 0 finite).
SampledGaussianAccount account_sampled_gaussian(double q, double noise_multiplier, double clip_norm,
                                                std::int64_t steps, double delta, const RdpOptions& options = {});

// The smallest noise multiplier with epsilon <= target (sampled_gaussian_noise_multiplier:
// refuses targets below twice the order floor).
SampledGaussianAccount calibrate_sampled_gaussian(double q, double clip_norm, std::int64_t steps,
                                                  double target_epsilon, double delta,
                                                  const RdpOptions& options = {});

// {"accountant": "rdp", "mechanism": ..., "q", "noise_multiplier", "clip_norm", "noise_std",
//  "steps", "epsilon", "delta", "optimal_order", "at_largest_order", "conversion",
//  "adjacency", "orders": [[first, last, step], ...]} (the orders as exact arithmetic runs).
nlohmann::json account_json(const SampledGaussianAccount& account);
// The inverse of account_json (Error(InvalidParameter) on a malformed record).
SampledGaussianAccount account_from_json(const nlohmann::json& j);

// A sorted grid as maximal arithmetic runs [first, last, step] (a lone order: step 0), and back.
nlohmann::json orders_as_runs(std::vector<double> orders);
std::vector<double> orders_from_runs(const nlohmann::json& runs);

}  // namespace dptrain::privacy
