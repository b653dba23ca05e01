// The empirical privacy audit harness (header-only, TEST CODE: shared by
// test/privacy/privacy_audit_test.cpp, the fast CI version, and
// bench/privacy_audit.cpp, the long one).
//
// What it does, for one algorithm configuration ("scenario"):
//  1. Neighbouring tables (replace-one): the same base rows, and at one
//     position a crafted "canary" row: (x*, positive) in D, (x*, negative) in
//     D'. Flipping the label of a row of maximal norm makes the two gradient
//     contributions opposite, the largest difference one row can make (2 L_x).
//  2. Training many times on each, exactly as the engine does (the run
//     object and its passes in memory, src/core/engine/in_memory.h), each run
//     with its own noise seed. The row order is the same fixed permutation in
//     every run by default: the guarantee holds for every data-independent
//     permutation, and fixing the worst one is the strongest adversary.
//  3. A distinguisher on the released model only: the projection
//     s = <w, u> onto a direction u, and the test "s > tau means D". u and tau
//     are chosen on separate CALIBRATION runs (u = difference of the mean
//     released models, tau = the threshold with the best bound on those
//     runs), then frozen; the bound is computed on fresh EVALUATION runs
//     only, so the choice of the test does not bias it.
//  4. A Clopper-Pearson lower bound on epsilon from the evaluation error
//     counts (src/core/privacy/audit_statistics.h): with probability at least
//     1 - alpha over the evaluation runs it is below the true epsilon of the
//     algorithm; a bound above the CLAIMED epsilon proves the claim false
//     (up to that probability).
//
// Any algorithm the engine can run can be audited by name (scenario.config.
// algorithm = "scs13", ...: white-box algorithms draw their noise inside the
// epochs from the run's seed, which the harness varies), or through a
// factory for test-only variants (broken_algorithms.h).
//
// Determinism: every random choice (noise seeds, optional random orders) is
// derived from Options::seed, so a given audit always gives the same numbers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/privacy/audit_statistics.h"
#include "core/engine/epoch_run.h"
#include "core/engine/in_memory.h"

namespace dptrain::test::audit {

namespace pa = privacy::audit;

// D and D' and the row order every run uses (the canary is at `canary_position`).
struct Neighbours {
  InMemoryData d, d_prime;
  std::vector<std::string> classes = {"negative", "positive"};
  std::int64_t canary_position = 0;
};

// Base rows: x with i.i.d. N(0,1) coordinates scaled to norm `norm` (<= 1),
// labels independent of x with P(positive) = 1/2 (pure noise: the model
// stays near 0, where losses have their largest gradients, so the canary's
// effect is not damped by the other rows).
inline InMemoryData noise_rows(int m, int dim, double norm, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g;
  std::bernoulli_distribution coin(0.5);
  InMemoryData t;
  for (int i = 0; i < m; ++i) {
    std::vector<double> x(dim);
    double sq = 0;
    for (double& v : x) {
      v = g(gen);
      sq += v * v;
    }
    for (double& v : x) v *= norm / std::sqrt(sq);
    t.x.push_back(x);
    t.y.push_back(coin(gen) ? 1.0 : 0.0);
  }
  return t;
}

// Inserts the canary (x*, positive) / (x*, negative) at `position` of `base`.
inline Neighbours canary_neighbours(const InMemoryData& base, const std::vector<double>& canary_x,
                                    std::int64_t position) {
  Neighbours n;
  n.canary_position = position;
  for (int side = 0; side < 2; ++side) {
    InMemoryData& t = side == 0 ? n.d : n.d_prime;
    for (std::int64_t i = 0; i <= base.rows(); ++i) {
      if (i == position) {
        t.x.push_back(canary_x);
        t.y.push_back(side == 0 ? 1.0 : 0.0);
      }
      if (i < base.rows()) {
        t.x.push_back(base.x[static_cast<std::size_t>(i)]);
        t.y.push_back(base.y[static_cast<std::size_t>(i)]);
      }
    }
  }
  return n;
}

using AlgorithmFactory = std::function<std::unique_ptr<Algorithm>()>;

struct Scenario {
  std::string name;
  TrainingConfig config;       // user arguments; rows, dim and classes come from the tables
  AlgorithmFactory algorithm;  // empty: make_algorithm(config.algorithm)
  // Optional, for reports only: the same algorithm without its noise (output
  // perturbation), to measure how far apart the neighbouring models really are.
  AlgorithmFactory noiseless;
  // Optional: the distance between the neighbouring noiseless models that the
  // analysis allows on these tables (default: plan.privacy["sensitivity"], the
  // model sensitivity of output perturbation). The noiseless gap is reported
  // relative to it.
  std::function<double(const TrainingPlan&)> gap_bound;
  // Optional: the exact epsilon, at the claimed delta, of the pair of release
  // distributions on these neighbours, derived from the plan: the most that
  // any distinguisher could certify with unlimited runs (the audit's ceiling).
  std::function<double(const TrainingPlan&, double delta)> ceiling;
};

struct Options {
  int calibration_runs = 500;  // per table, to choose the test
  int runs = 2000;             // per table, to compute the bound
  double alpha = 0.05;         // the bound holds with probability >= 1 - alpha
  std::uint64_t seed = 1;
  bool random_order = false;   // a fresh random permutation per run instead of the fixed one
};

struct Result {
  std::string name;
  double claimed_epsilon = 0, claimed_delta = 0;
  double sensitivity = 0;          // plan.privacy["sensitivity"] if the algorithm records one (else 0)
  double gap_bound = 0;            // scenario.gap_bound(plan), else the sensitivity
  double ceiling = -1;             // scenario.ceiling(plan, delta) if given (-1 = unknown)
  double mean_gap = 0;             // ||mean release(D) - mean release(D')|| over the calibration runs (noisy)
  double noiseless_gap = -1;       // ||w(D) - w(D')|| without noise, if scenario.noiseless is given
  double threshold = 0;
  double calibration_bound = 0;    // the bound on the calibration runs (biased upwards: for reports only)
  pa::ErrorCounts counts;
  pa::EpsilonLowerBound bound;     // on the evaluation runs: the audit's result
};

namespace detail {

// Wraps an algorithm so that every run of an audit reuses one plan. The
// plan is a function of the public configuration only (never of the seed:
// run_audit checks that two seeds give the same plan), and planning a
// Gaussian mechanism (analytic calibration, advanced composition) costs
// ~100 us, more than a whole run on the small audit tables.
class PlannedOnce : public EpochAlgorithm {
 public:
  PlannedOnce(std::shared_ptr<const EpochAlgorithm> inner, std::shared_ptr<const TrainingPlan> plan)
      : inner_(std::move(inner)), plan_(std::move(plan)) {}
  std::string name() const override { return inner_->name(); }
  TrainingPlan plan(const TrainingConfig&) const override { return *plan_; }
  void release(const TrainingConfig& config, const TrainingPlan& plan, WeightMatrix& weights,
               privacy::RandomSource& rng) const override {
    inner_->release(config, plan, weights, rng);
  }
  bool calibrate_output_noise(const TrainingConfig& config, TrainingPlan& plan, double sensitivity,
                              const std::string& rule) const override {
    return inner_->calibrate_output_noise(config, plan, sensitivity, rule);
  }

 private:
  std::shared_ptr<const EpochAlgorithm> inner_;
  std::shared_ptr<const TrainingPlan> plan_;
};

inline bool same_plan(const TrainingPlan& a, const TrainingPlan& b) {
  return a.privacy == b.privacy && a.epoch.noise == b.epoch.noise && a.epoch.noise_scale == b.epoch.noise_scale &&
         a.epoch.schedule.at(1) == b.epoch.schedule.at(1) && a.epoch.radius == b.epoch.radius &&
         a.epsilon == b.epsilon && a.delta == b.delta;
}

inline TrainingConfig with_facts(TrainingConfig c, const Neighbours& n) {
  c.rows = n.d.rows();
  c.dim = n.d.dim();
  c.classes = n.classes;
  return c;
}

// The released weights (K*d, row-major) of one run with noise seed `seed`.
inline std::vector<double> release(const Scenario& s, const TrainingConfig& config, const InMemoryData& table,
                                   std::int64_t seed, const Options& o) {
  TrainingConfig c = config;
  c.seed = seed;  // the noise (and a white-box algorithm's key) of this run
  std::unique_ptr<Run> run = start_run(c, s.algorithm ? s.algorithm() : make_algorithm(c.algorithm));
  // Row orders (public, as in SQL) from a generator of their own.
  std::mt19937_64 orders(static_cast<std::uint64_t>(seed) ^ 0x6f72646572ULL);
  std::vector<std::int64_t> order(static_cast<std::size_t>(table.rows()));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (o.random_order) std::shuffle(order.begin(), order.end(), orders);
  const Model m = drive_in_memory(*run, table, order, &orders);
  return std::vector<double>(m.weights.data(), m.weights.data() + m.weights.size());
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

// Error counts of the test "score > tau means D".
inline pa::ErrorCounts count(const std::vector<double>& scores_d, const std::vector<double>& scores_dp, double tau) {
  pa::ErrorCounts c;
  c.runs_d = static_cast<std::int64_t>(scores_d.size());
  c.runs_d_prime = static_cast<std::int64_t>(scores_dp.size());
  for (double s : scores_d) c.false_negatives += s <= tau;
  for (double s : scores_dp) c.false_positives += s > tau;
  return c;
}

}  // namespace detail

// One release of a mechanism on `table` with noise seed `seed`: the released
// weights (K*d, row-major).
using Release = std::function<std::vector<double>(const InMemoryData& table, std::int64_t seed)>;

// Steps 1-2 of an audit, for any release: calibration runs choose the
// direction and the threshold, fresh evaluation runs give the error counts
// and the bound (r.claimed_delta and the options' alpha). Fills the
// calibration and evaluation fields of `r`.
inline void distinguish(const Release& release, const Neighbours& n, const Options& o, Result& r);

inline Result run_audit(const Scenario& s, const Neighbours& n, const Options& o) {
  const TrainingConfig config = detail::with_facts(s.config, n);
  Result r;
  r.name = s.name;
  r.claimed_epsilon = config.epsilon.value_or(0.0);
  r.claimed_delta = config.delta.value_or(0.0);
  // One plan for all runs (detail::PlannedOnce), checked to be seed-independent.
  std::shared_ptr<const Algorithm> algorithm = s.algorithm ? s.algorithm() : make_algorithm(config.algorithm);
  TrainingConfig seeded = config;
  seeded.seed = 1;
  auto plan = std::make_shared<const TrainingPlan>(algorithm->plan(seeded));
  seeded.seed = 2;
  if (!detail::same_plan(*plan, algorithm->plan(seeded)))
    throw std::logic_error("run_audit: the plan of \"" + s.name + "\" depends on the seed");
  // (A number for output perturbation; DP-SGD records a description.)
  const auto recorded = plan->privacy.find("sensitivity");
  r.sensitivity = recorded != plan->privacy.end() && recorded->is_number() ? recorded->get<double>() : 0.0;
  r.gap_bound = s.gap_bound ? s.gap_bound(*plan) : r.sensitivity;
  if (s.ceiling) r.ceiling = s.ceiling(*plan, r.claimed_delta);
  Scenario planned = s;
  // Runs of other shapes (not SGD epochs) plan inside their own start().
  if (auto epochs = std::dynamic_pointer_cast<const EpochAlgorithm>(algorithm))
    planned.algorithm = [epochs, plan] { return std::make_unique<detail::PlannedOnce>(epochs, plan); };
  if (s.noiseless) {
    Scenario quiet = s;
    quiet.algorithm = s.noiseless;
    const std::vector<double> a = detail::release(quiet, config, n.d, 0, o);
    const std::vector<double> b = detail::release(quiet, config, n.d_prime, 0, o);
    double sq = 0;
    for (std::size_t j = 0; j < a.size(); ++j) sq += (a[j] - b[j]) * (a[j] - b[j]);
    r.noiseless_gap = std::sqrt(sq);
  }
  distinguish([&](const InMemoryData& table, std::int64_t seed) { return detail::release(planned, config, table, seed, o); },
              n, o, r);
  return r;
}

inline void distinguish(const Release& release, const Neighbours& n, const Options& o, Result& r) {
  // Noise seeds: disjoint blocks per phase and table, derived from o.seed.
  const std::int64_t base = static_cast<std::int64_t>(o.seed % 1000000) * 100000000;
  auto releases = [&](const InMemoryData& table, int runs, std::int64_t block) {
    std::vector<std::vector<double>> out;
    out.reserve(static_cast<std::size_t>(runs));
    for (int i = 0; i < runs; ++i) out.push_back(release(table, base + block * 20000000 + i));
    return out;
  };

  // 1. Calibration: direction and threshold.
  const auto cal_d = releases(n.d, o.calibration_runs, 0);
  const auto cal_dp = releases(n.d_prime, o.calibration_runs, 1);
  const std::size_t p = cal_d.front().size();
  std::vector<double> u(p, 0.0);
  for (std::size_t j = 0; j < p; ++j) {
    for (const auto& w : cal_d) u[j] += w[j] / cal_d.size();
    for (const auto& w : cal_dp) u[j] -= w[j] / cal_dp.size();
  }
  r.mean_gap = std::sqrt(detail::dot(u, u));
  if (r.mean_gap > 0) {
    for (double& v : u) v /= r.mean_gap;
  } else {
    u[0] = 1.0;
  }
  std::vector<double> sd, sdp;
  for (const auto& w : cal_d) sd.push_back(detail::dot(w, u));
  for (const auto& w : cal_dp) sdp.push_back(detail::dot(w, u));
  std::vector<double> pooled = sd;
  pooled.insert(pooled.end(), sdp.begin(), sdp.end());
  std::sort(pooled.begin(), pooled.end());
  // Candidate thresholds: up to 400 quantiles of the pooled calibration scores.
  const std::size_t step = std::max<std::size_t>(1, pooled.size() / 400);
  r.threshold = pooled[pooled.size() / 2];
  r.calibration_bound = -1;
  for (std::size_t i = 0; i < pooled.size(); i += step) {
    const double b = pa::epsilon_lower_bound(detail::count(sd, sdp, pooled[i]), r.claimed_delta, o.alpha).epsilon;
    if (b > r.calibration_bound) {
      r.calibration_bound = b;
      r.threshold = pooled[i];
    }
  }

  // 2. Evaluation: fresh runs, the frozen test, the bound.
  std::vector<double> ed, edp;
  for (const auto& w : releases(n.d, o.runs, 2)) ed.push_back(detail::dot(w, u));
  for (const auto& w : releases(n.d_prime, o.runs, 3)) edp.push_back(detail::dot(w, u));
  r.counts = detail::count(ed, edp, r.threshold);
  r.bound = pa::epsilon_lower_bound(r.counts, r.claimed_delta, o.alpha);
}

}  // namespace dptrain::test::audit
