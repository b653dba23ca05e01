// The audited configurations, shared by the CI audit
// (test/privacy/privacy_audit_test.cpp) and the long one
// (bench/privacy_audit.cpp). TEST CODE.
//
// Data: m = 100 rows of dimension 1 (in dimension 1 the L2-Laplace noise is
// the Laplace distribution, whose privacy loss reaches epsilon exactly: the
// tightest setting for an audit), 99 base rows with |x| = 1 and random labels
// (the model stays near 0), and the canary x* = 1 as the LAST row (the worst
// position for the strongly convex bounds, and as bad as any for the convex
// ones), with label positive in D and negative in D'.
//
// Loss: Huber SVM (h = 0.1). Near w = 0 every row is in its linear region
// (margin < 1 - h), where the gradient is -y x whatever w is: the canary's
// two versions then move the model by exactly 2 L_x eta / b per epoch, and
// the other rows move both runs identically, so the neighbouring models
// differ by exactly the convex sensitivity 2 k L eta / b (Corollary 1). In the
// strongly convex runs the radius is set to 1 (a user argument) so that
// L = L_x + lambda R = 1 + lambda is close to L_x = 1; with the paper's
// R = 1/lambda, L = 2 L_x and the bound carries a factor 2 of slack that no
// audit can see.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/privacy/gaussian_calibration.h"

#include "broken_algorithms.h"
#include "privacy_audit.h"

namespace dptrain::test::audit {

inline Neighbours standard_neighbours() {
  const InMemoryData base = noise_rows(99, 1, 1.0, 2024);
  return canary_neighbours(base, {1.0}, 99);
}

inline TrainingConfig bolton_config(double epsilon, double delta, double lambda) {
  TrainingConfig c;
  c.algorithm = "bolton";
  c.loss = "huber_svm";
  c.epsilon = epsilon;
  if (delta > 0) c.delta = delta;
  c.lambda = lambda;
  c.epochs = 5;
  c.batch_size = 10;
  if (lambda > 0) c.radius = 1.0;
  return c;
}

inline Scenario bolton_scenario(const std::string& name, const TrainingConfig& c, AlgorithmFactory variant = {}) {
  Scenario s;
  s.name = name;
  s.config = c;
  s.algorithm = std::move(variant);
  s.noiseless = noiseless_bolton();
  return s;
}

// The four scenarios of the paper (convex / strongly convex x eps-DP /
// (eps, delta)-DP) at the claimed epsilon = 1, delta = 1e-5.
inline std::vector<Scenario> bolton_scenarios() {
  return {
      bolton_scenario("bolton convex eps-DP", bolton_config(1.0, 0, 0)),
      bolton_scenario("bolton convex (eps,delta)-DP", bolton_config(1.0, 1e-5, 0)),
      bolton_scenario("bolton strongly convex eps-DP", bolton_config(1.0, 0, 0.01)),
      bolton_scenario("bolton strongly convex (eps,delta)-DP", bolton_config(1.0, 1e-5, 0.01)),
  };
}

// The broken variant (sensitivity divided by 10) at a small claimed epsilon.
inline std::vector<Scenario> broken_scenarios(double epsilon = 0.25) {
  std::vector<Scenario> s = {
      bolton_scenario("BROKEN bolton/10 convex eps-DP", bolton_config(epsilon, 0, 0), under_noised_bolton(10)),
      bolton_scenario("BROKEN bolton/10 convex (eps,delta)-DP", bolton_config(epsilon, 1e-5, 0), under_noised_bolton(10)),
      bolton_scenario("BROKEN bolton/10 strongly convex eps-DP", bolton_config(epsilon, 0, 0.01), under_noised_bolton(10)),
      bolton_scenario("BROKEN bolton/10 strongly convex (eps,delta)-DP", bolton_config(epsilon, 1e-5, 0.01), under_noised_bolton(10)),
  };
  return s;
}

// ---------------------------------------------------------------------------
// White-box algorithms (SCS13, BST14: noise on every mini-batch gradient sum
// inside the epochs; docs/whitebox.md, docs/privacy_audit.md §3).
//
// The tables above would dilute the canary: its 5 noisy updates are 5 of 50,
// and the final model carries the noise of all 50. Here every other row has
// x = 0, so its loss gradient is 0 and only the canary moves the model, and
// the table is ONE batch (m = b = 10) trained for ONE pass: a single update
//   w_1 = Pi_R(-eta_1 (g* + Z_1) / b),   g* = -y* x* = -/+1 (Huber's linear
// region at w = 0),
// so the released model is the canary's gradient plus one draw of the
// per-batch noise, scaled by eta_1 / b. The two canary versions differ by
// exactly the sensitivity Delta = 2 of the gradient sum: the release pair is
// exactly one L2-Laplace (= Laplace in dimension 1) or one Gaussian mechanism
// with the plan's scale, and the threshold test on w is the Neyman-Pearson
// test for it. Every further batch would only add noise (dilution), every
// further pass composes (basic composition for SCS13's Gaussian is loose, and
// the sum of Laplace draws is not a sufficient statistic), so one update is
// where the privacy loss that the analysis allows is largest.
//
// How tight (the ceiling below is the exact epsilon of the release pair):
// SCS13 spends its whole budget on this one update, so its ceiling is the
// claimed epsilon itself; BST14 computes its per-update budget by advanced
// composition, which for T = 1 costs a factor sqrt(2 ln(2/delta)) (about 4.9
// at delta = 1e-5), so its ceiling is about 0.18 for a claim of 1: no
// distinguisher on its models could show more. The step sizes only scale w:
// the convex BST14 step 2R/(G sqrt t) would clip most releases at the radius
// (|w| <= R whatever R), so those runs use learning_rate = 1e-3 (hyperparameters
// are public choices: the guarantee must hold for all of them).
// ---------------------------------------------------------------------------

inline Neighbours whitebox_neighbours(int rows = 10) {
  InMemoryData zeros;
  for (int i = 0; i < rows - 1; ++i) {
    zeros.x.push_back({0.0});
    zeros.y.push_back(i % 2);
  }
  return canary_neighbours(zeros, {1.0}, rows - 1);
}

// One pass over the 10 rows of whitebox_neighbours() in one batch (or
// `epochs` passes; see whitebox_multipass_scenarios).
inline TrainingConfig whitebox_config(const std::string& algorithm, double epsilon, double delta, double lambda,
                                      int epochs = 1) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.loss = "huber_svm";
  c.epsilon = epsilon;
  if (delta > 0) c.delta = delta;
  c.lambda = lambda;
  c.epochs = epochs;
  c.batch_size = 10;
  if (algorithm == "bst14" && lambda == 0) {
    c.radius = 1.0;
    c.learning_rate = 1e-3;
  }
  return c;
}

// The exact epsilon at `delta` of the pair N(0, sigma^2), N(shift, sigma^2):
// the root in epsilon of the Gaussian privacy profile (Balle & Wang 2018,
// Theorem 8; privacy::analytic_gaussian_delta), by bisection.
inline double gaussian_pair_epsilon(double shift, double sigma, double delta) {
  if (privacy::analytic_gaussian_delta(shift, sigma, 0.0) <= delta) return 0.0;
  double lo = 0, hi = 1;
  while (privacy::analytic_gaussian_delta(shift, sigma, hi) > delta) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (privacy::analytic_gaussian_delta(shift, sigma, mid) > delta ? lo : hi) = mid;
  }
  return hi;
}

namespace detail {
// Sum (and sum of squares) of the step sizes of the plan's T updates.
inline double step_sum(const TrainingPlan& p, int power) {
  const std::int64_t T = p.privacy.at("updates").get<std::int64_t>();
  double sum = 0;
  for (std::int64_t t = 1; t <= T; ++t) sum += std::pow(p.epoch.schedule.at(static_cast<std::uint64_t>(t)), power);
  return sum;
}
}  // namespace detail

// On whitebox_neighbours(), with every update containing the canary (one
// batch per pass) and no contraction by a regularizer between updates (one
// update, or lambda = 0), the noiseless models are -/+ sum_t eta_t g* / b:
// they differ by Delta sum_t eta_t / b.
inline double whitebox_gap_bound(const TrainingPlan& p) {
  return p.privacy.at("sensitivity").get<double>() * detail::step_sum(p, 1) / static_cast<double>(p.epoch.batch_size);
}

// The exact epsilon of the release pair on those tables (no projection
// active): Gaussian noise gives N(-/+ Delta sum eta_t / (2b), sigma^2 sum eta_t^2 / b^2),
// one L2-Laplace draw (one update) the Laplace pair with shift Delta and
// scale `noise_scale`: epsilon = Delta / scale. Several L2-Laplace updates:
// unknown (-1; the sum of Laplace draws is not a sufficient statistic).
inline double whitebox_ceiling(const TrainingPlan& p, double delta) {
  const double sensitivity = p.privacy.at("sensitivity").get<double>();
  if (p.epoch.noise == privacy::BatchNoiseKind::Gaussian)
    return gaussian_pair_epsilon(sensitivity * detail::step_sum(p, 1), p.epoch.noise_scale * std::sqrt(detail::step_sum(p, 2)),
                                 delta);
  if (p.epoch.noise == privacy::BatchNoiseKind::L2Laplace && p.privacy.at("updates").get<std::int64_t>() == 1)
    return sensitivity / p.epoch.noise_scale;
  return -1;
}

inline Scenario whitebox_scenario(const std::string& name, const TrainingConfig& c, AlgorithmFactory variant = {}) {
  Scenario s;
  s.name = name;
  s.config = c;
  s.algorithm = std::move(variant);
  s.noiseless = noiseless_whitebox(c.algorithm);
  s.gap_bound = whitebox_gap_bound;
  s.ceiling = whitebox_ceiling;
  return s;
}

// SCS13 in the four scenarios, BST14 in its two ((epsilon, delta)-DP only),
// claimed epsilon = 1, delta = 1e-5.
inline std::vector<Scenario> whitebox_scenarios() {
  return {
      whitebox_scenario("scs13 convex eps-DP", whitebox_config("scs13", 1.0, 0, 0)),
      whitebox_scenario("scs13 convex (eps,delta)-DP", whitebox_config("scs13", 1.0, 1e-5, 0)),
      whitebox_scenario("scs13 strongly convex eps-DP", whitebox_config("scs13", 1.0, 0, 0.01)),
      whitebox_scenario("scs13 strongly convex (eps,delta)-DP", whitebox_config("scs13", 1.0, 1e-5, 0.01)),
      whitebox_scenario("bst14 convex (eps,delta)-DP", whitebox_config("bst14", 1.0, 1e-5, 0)),
      whitebox_scenario("bst14 strongly convex (eps,delta)-DP", whitebox_config("bst14", 1.0, 1e-5, 0.01)),
  };
}

// The per-batch noise scale divided by `factor` (broken_algorithms.h).
// SCS13 at claimed epsilon `scs13_epsilon`: true epsilon = factor x the claim
// (pure), more for the Gaussian. BST14's analysis has a factor ~5 of slack
// at one update, so noise / 10 makes its true epsilon only ~2.3 x the claim:
// it is audited at a claim of 1 (true 2.3), where the test still needs many
// runs (see docs/privacy_audit.md).
inline std::vector<Scenario> broken_whitebox_scenarios(double scs13_epsilon = 0.25, double bst14_epsilon = 1.0,
                                                       double factor = 10) {
  const std::string tag = "/" + std::to_string(static_cast<int>(factor));
  auto broken = [&](const std::string& name, const TrainingConfig& c) {
    return whitebox_scenario("BROKEN " + c.algorithm + tag + " " + name, c, under_noised_whitebox(c.algorithm, factor));
  };
  return {
      broken("convex eps-DP", whitebox_config("scs13", scs13_epsilon, 0, 0)),
      broken("convex (eps,delta)-DP", whitebox_config("scs13", scs13_epsilon, 1e-5, 0)),
      broken("strongly convex eps-DP", whitebox_config("scs13", scs13_epsilon, 0, 0.01)),
      broken("strongly convex (eps,delta)-DP", whitebox_config("scs13", scs13_epsilon, 1e-5, 0.01)),
      broken("convex (eps,delta)-DP", whitebox_config("bst14", bst14_epsilon, 1e-5, 0)),
      broken("strongly convex (eps,delta)-DP", whitebox_config("bst14", bst14_epsilon, 1e-5, 0.01)),
  };
}

// Long version only: k passes over the one-batch table with a constant step
// (eta = 1e-4, small enough that the canary stays in Huber's linear region, so
// every update sees the same g*): with Gaussian noise the final model is then
// a sufficient statistic of all k noisy updates, and the ceiling is the exact
// epsilon of their composition, which basic composition over passes (SCS13)
// or advanced composition (BST14) overestimates.
inline std::vector<Scenario> whitebox_multipass_scenarios(int passes) {
  std::vector<Scenario> out;
  for (const char* algorithm : {"scs13", "bst14"}) {
    TrainingConfig c = whitebox_config(algorithm, 1.0, 1e-5, 0, passes);
    c.schedule = "constant";
    c.learning_rate = 1e-4;
    out.push_back(whitebox_scenario(
        std::string(algorithm) + " convex (eps,delta)-DP, " + std::to_string(passes) + " passes", c));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Bolt-on one-vs-all with joint Gaussian noise (options.multiclass_noise =
// 'joint': one release of the K x d matrix, sensitivity sqrt(K) Delta at the
// full (epsilon, delta); docs/bolton.md).
//
// To reach that sensitivity the canary keeps its class (0) and flips its
// FEATURES: x* = +1 in D, -1 in D' (replace-one adjacency lets a row change
// entirely). Every one-vs-all model k sees the canary with the same target
// y_k in both tables, and in Huber's linear region its gradient -y_k x* flips
// sign, so each of the K models moves by exactly Delta (the convex bound),
// and the matrix by sqrt(K) Delta. (Flipping the label instead would move only
// the two models whose targets change: sqrt(2) Delta.) The base rows are the
// standard ones (classes 0 and 1 only; the other models see them all as
// negatives and stay near 0). The release pair is then one Gaussian mechanism
// with shift sqrt(K) Delta and the plan's sigma: its epsilon at the claimed
// delta, the ceiling, is the claim itself.
// ---------------------------------------------------------------------------

inline Neighbours feature_flip_neighbours(int classes) {
  const InMemoryData base = noise_rows(99, 1, 1.0, 2024);
  Neighbours n;
  n.classes.clear();
  for (int k = 0; k < classes; ++k) n.classes.push_back("c" + std::to_string(k));
  n.canary_position = 99;
  n.d = base;
  n.d_prime = base;
  n.d.x.push_back({1.0});
  n.d_prime.x.push_back({-1.0});
  n.d.y.push_back(0.0);
  n.d_prime.y.push_back(0.0);
  return n;
}

// Joint-release scenario for K classes; `factor` > 1 is the broken variant
// that forgets part of sqrt(K) (noise `factor` times too small).
inline Scenario joint_multiclass_scenario(const std::string& name, int classes, double epsilon, double factor = 1.0) {
  TrainingConfig c = bolton_config(epsilon, 1e-5, 0);
  c.options = {{"multiclass_noise", "joint"}};
  Scenario s = bolton_scenario(name, c, factor > 1.0 ? under_noised_bolton(factor) : AlgorithmFactory{});
  const double root_k = std::sqrt(static_cast<double>(classes));
  // From the per-model bound, which the broken variant leaves alone.
  s.gap_bound = [root_k](const TrainingPlan& p) { return root_k * p.privacy.at("sensitivity").get<double>(); };
  s.ceiling = [root_k](const TrainingPlan& p, double delta) {
    return gaussian_pair_epsilon(root_k * p.privacy.at("sensitivity").get<double>(),
                                 p.privacy.at("noise").at("sigma").get<double>(), delta);
  };
  return s;
}

}  // namespace dptrain::test::audit
