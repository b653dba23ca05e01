// RDP accountant of the Poisson-subsampled Gaussian mechanism (Mironov, Talwar & Zhang
// 2019, "Renyi Differential Privacy of the Sampled Gaussian Mechanism").
// One step: every row is included independently with probability q (Poisson sampling;
// a fixed permutation gives no amplification), the included rows' contributions (each clipped to
// L2 norm C) are summed, and N(0, (sigma C)^2 I) is added; sigma is the noise multiplier.
//
// Adjacency: add/remove-one. The per-step RDP is that of the mixture
// (1-q) N(0, sigma^2) + q N(1, sigma^2) against N(0, sigma^2) (MTZ Theorem 4), which bounds
// both directions of an added or removed row. A replace-one guarantee is derived from it
// by group privacy (RdpOptions::adjacency, see adjacency.h); it is sound but loose.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/interrupt.h"
#include "core/privacy/adjacency.h"
#include "core/privacy/rdp.h"

namespace dptrain::privacy {

// RDP of one step at order alpha > 1, for q in (0, 1] and sigma > 0:
//   RDP(alpha) = ln(A_alpha) / (alpha - 1),
//   A_alpha = E_{z ~ N(0, sigma^2)} [((1 - q) + q e^{(2z - 1) / (2 sigma^2)})^alpha].
// Integer alpha: the exact binomial sum (MTZ Section 3.2), as a log-sum-exp that stays
// exact up to the largest orders (rdp_sampled_gaussian_series.h). Fractional alpha: the
// signed two-sided series of MTZ Section 3.3, an upper bound whose relative precision is
// ~1e-16 / (A - 1) (A - 1 = O(q^2) is obtained by cancellation: fractional orders matter
// only where A - 1 is not tiny, i.e. large epsilon). q = 1 gives the Gaussian's
// alpha / (2 sigma^2).
double sampled_gaussian_rdp(double q, double noise_multiplier, double order);

// steps * RDP(alpha) for each order (composition over identical steps).
std::vector<double> sampled_gaussian_rdp_curve(double q, double noise_multiplier, std::int64_t steps,
                                               const std::vector<double>& orders);

struct RdpOptions {
  RdpConversion conversion = RdpConversion::Improved;
  std::vector<double> orders = default_rdp_orders();
  Adjacency adjacency = Adjacency::AddRemoveOne;
  // Polled before each order's series; true = stop (an Error with SQLSTATE 57014).
  // The SQL functions take any number of orders: without it, rdp_sigma over 10^6
  // orders ran 10 s past a 2 s statement_timeout.
  InterruptCheck interrupted;
};

// (epsilon, delta)-DP of `steps` steps, optimised over the orders (orders that provably
// cannot beat the best so far are skipped: the RDP is non-decreasing in the order).
RdpEpsilon sampled_gaussian_epsilon(double q, double noise_multiplier, std::int64_t steps, double delta,
                                    const RdpOptions& options = {});

struct RdpNoise {
  double noise_multiplier;  // the smallest sigma (to ~1e-10 relative, rounded up) reaching the target
  double epsilon;           // the epsilon it achieves (<= the target)
  double optimal_order;
};

// Inverse accountant: the smallest noise multiplier for which `steps` steps at rate q are
// (target_epsilon, delta)-DP, by bisection on ln sigma (epsilon decreases in sigma). Returns
// the noisier end of the final bracket. Throws Error(InvalidParameter) for a target below
// twice the order floor 2 ln(1/delta)/(alpha_max - 1) (rdp_order_floor): infinite noise
// would still cost the floor, and near it the grid, not the mechanism, decides sigma.
RdpNoise sampled_gaussian_noise_multiplier(double q, std::int64_t steps, double target_epsilon, double delta,
                                           const RdpOptions& options = {});

}  // namespace dptrain::privacy
