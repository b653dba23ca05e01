// The plan of algorithm => 'opdisc': objective perturbation over a discrete
// grid of linear classifiers for the 0/1 loss (Neel, Roth, Vietri & Wu,
// ICML 2020, Algorithm 1 "OPDisc", Theorem 1; docs/opdisc.md).
//
// Grid (the paper's experiments, §5): w = tau * k with integer k_j in
// {-B, ..., B} and ||k||^2 <= K; defaults B = floor(sqrt(d)), K = d, tau = 1.
// Every pair of grid points is tau apart, and ||w|| <= D = tau sqrt(K).
//
// Noise (Theorem 1 with its proof's shift c = 4 G D^2 / tau):
//   eta ~ N(0, sigma^2 I_{d+1}),  sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau epsilon),
// valid for epsilon <= ln(1/delta) (docs/opdisc.md derives the constant).
// A 0/1 loss changes by at most 1 between grid points >= tau apart, so it is
// G = 1/tau Lipschitz on the grid: sigma = 7 D^2 sqrt(ln(1/delta)) / (tau^2 epsilon)
// = 7 K sqrt(ln(1/delta)) / epsilon, whatever tau. The authors' code uses
// half of this (about (2 epsilon, delta)-DP): never done here.
//
// Replace-one adjacency (the paper's Definition 2.5); (epsilon, delta)-DP
// with delta > 0 only; binary labels only.
#pragma once

#include <nlohmann/json.hpp>

#include "core/training/config.h"

namespace dptrain::opdisc {

// Largest d the exact oracle is offered for (a public limit on the
// dimension; the paper found more than 30 features hard for its solver).
constexpr int kMaxFeatures = 30;
// Largest coordinate bound B and norm bound K accepted (the MIP has
// d (2B + 1) + K + 1 binaries besides the groups').
constexpr int kMaxBound = 30;
constexpr int kMaxNormSquared = 900;
// Default and largest wall-clock limit of one MIP solve (seconds).
constexpr double kDefaultTimeLimit = 600;
constexpr double kMaxTimeLimit = 86400;
// Largest number of distinct (binarized) feature vectors the run accepts
// (the grouping pass's result has d + 2 values per vector).
constexpr long kMaxGroups = 200000;
// The largest noise sigma the MIP may see: CBC treats coefficients near 1e30
// as infinite and aborts (a tiny epsilon, 1e-30, gave sigma ~ 1e32); far
// below that the 0/1 counts (at most n) are lost in the noise anyway.
constexpr double kMaxSigma = 1e20;

struct Plan {
  int dim = 0;              // d
  int bound = 0;            // B: k_j in {-B..B}
  int norm_squared = 0;     // K: ||k||^2 <= K
  double tau = 1;           // grid spacing: w = tau k
  double epsilon = 0;
  double delta = 0;
  double lipschitz = 0;     // G = 1 / tau (0/1 loss on a tau-separated grid)
  double radius = 0;        // D = tau sqrt(K) >= max ||w|| over the grid
  double sigma = 0;         // std of each of the d + 1 noise coordinates
  double time_limit = kDefaultTimeLimit;

  nlohmann::json to_json() const;
};

// sigma = 7 G D^2 sqrt(ln(1/delta)) / (tau epsilon) (Theorem 1 of the paper,
// its proof's constant; docs/opdisc.md). Requires 0 < epsilon <= ln(1/delta).
double noise_sigma(double lipschitz, double radius, double tau, double epsilon, double delta);

// The checks that need no fact of the data (epsilon, delta > 0, epsilon <=
// ln(1/delta), options, inapplicable arguments): made before a run is
// charged (Algorithm::check_arguments).
void check_arguments(const TrainingConfig& config);

// check_arguments, the public facts (d, binary classes), and the plan.
// options: "bound" (B), "norm_squared" (K), "tau", "time_limit" (seconds).
Plan make_plan(const TrainingConfig& config);

}  // namespace dptrain::opdisc
