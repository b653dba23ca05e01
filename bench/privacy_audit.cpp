// bench/privacy_audit: the long empirical privacy audit (the CI version is
// test/privacy/privacy_audit_test.cpp; the harness and the scenarios are in
// test/privacy/audit/). For every scenario it prints the claimed epsilon,
// the Clopper-Pearson lower bound on the true epsilon (confidence 1 - alpha),
// the raw point estimate, the ceiling (the exact epsilon of the release pair,
// where known: no test can certify more), the noiseless gap relative to what
// the analysis allows, the error rates and the time taken.
//
//   build/bench/privacy_audit [--runs 50000] [--calibration-runs 5000] [--alpha 0.01]
//                             [--seed 1] [--random-order] [--only SUBSTRING] [--broken-epsilon 0.25]
//                             [--broken-bst14-epsilon 1] [--passes 2 5]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "../test/privacy/audit/scenarios.h"

namespace au = dptrain::test::audit;

int main(int argc, char** argv) {
  CLI::App app{"empirical privacy audit of bolt-on, SCS13 and BST14 (and of deliberately broken variants)"};
  au::Options o;
  o.runs = 50000;
  o.calibration_runs = 5000;
  o.alpha = 0.01;
  std::string only;
  double broken_epsilon = 0.25, broken_bst14_epsilon = 1.0;
  std::vector<int> passes = {2, 5};
  app.add_option("--runs", o.runs, "evaluation runs per table")->capture_default_str();
  app.add_option("--calibration-runs", o.calibration_runs, "calibration runs per table")->capture_default_str();
  app.add_option("--alpha", o.alpha, "1 - confidence of the bound")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the audit's randomness")->capture_default_str();
  app.add_flag("--random-order", o.random_order, "a fresh random row order per run (default: fixed worst order)");
  app.add_option("--only", only, "run only scenarios whose name contains this");
  app.add_option("--broken-epsilon", broken_epsilon, "claimed epsilon of the broken bolton and scs13 variants")
      ->capture_default_str();
  app.add_option("--broken-bst14-epsilon", broken_bst14_epsilon, "claimed epsilon of the broken bst14 variants")
      ->capture_default_str();
  app.add_option("--passes", passes, "passes of the multi-pass white-box scenarios")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  // Bolt-on on the standard canary tables, the white-box algorithms on the
  // one-update tables (scenarios.h explains both designs).
  const au::Neighbours standard = au::standard_neighbours(), whitebox = au::whitebox_neighbours();
  std::vector<std::pair<au::Scenario, const au::Neighbours*>> scenarios;
  for (auto& s : au::bolton_scenarios()) scenarios.emplace_back(s, &standard);
  for (auto& s : au::broken_scenarios(broken_epsilon)) scenarios.emplace_back(s, &standard);
  for (auto& s : au::whitebox_scenarios()) scenarios.emplace_back(s, &whitebox);
  for (auto& s : au::broken_whitebox_scenarios(broken_epsilon, broken_bst14_epsilon)) scenarios.emplace_back(s, &whitebox);
  for (int k : passes)
    for (auto& s : au::whitebox_multipass_scenarios(k)) scenarios.emplace_back(s, &whitebox);
  // Bolt-on's joint one-vs-all release on the feature-flip canary, and the
  // variant that forgets sqrt(K).
  const au::Neighbours flip16 = au::feature_flip_neighbours(16), flip64 = au::feature_flip_neighbours(64);
  scenarios.emplace_back(au::joint_multiclass_scenario("bolton one-vs-all joint (eps,delta)-DP, K=16", 16, 1.0),
                         &flip16);
  scenarios.emplace_back(
      au::joint_multiclass_scenario("BROKEN joint without sqrt(K), K=64", 64, broken_epsilon, 8.0), &flip64);

  std::printf("runs %d + %d calibration per table, alpha %.3g, seed %llu, %s order\n", o.runs, o.calibration_runs,
              o.alpha, static_cast<unsigned long long>(o.seed), o.random_order ? "random" : "fixed");
  std::printf("%-50s %8s %9s %10s %8s %9s %9s %8s %8s %7s\n", "scenario", "claimed", "eps_lb", "point_est", "ceiling",
              "gap/bound", "FNR", "FPR", "cal_lb", "secs");
  for (const auto& [s, n] : scenarios) {
    if (!only.empty() && s.name.find(only) == std::string::npos) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const au::Result r = au::run_audit(s, *n, o);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char gap[16] = "-";  // only for scenarios with a noiseless variant and a gap bound
    if (r.gap_bound > 0 && r.noiseless_gap >= 0) std::snprintf(gap, sizeof(gap), "%.4f", r.noiseless_gap / r.gap_bound);
    char ceiling[16] = "-";  // only where the exact epsilon of the release pair is known
    if (r.ceiling >= 0) std::snprintf(ceiling, sizeof(ceiling), "%.4f", r.ceiling);
    std::printf("%-50s %8.4g %9.4f %10.4f %8s %9s %9.5f %8.5f %8.4f %7.1f%s\n", r.name.c_str(), r.claimed_epsilon,
                r.bound.epsilon, r.bound.point_estimate, ceiling, gap,
                static_cast<double>(r.counts.false_negatives) / r.counts.runs_d,
                static_cast<double>(r.counts.false_positives) / r.counts.runs_d_prime, r.calibration_bound, secs,
                r.bound.epsilon > r.claimed_epsilon ? "  <- EXCEEDS THE CLAIM" : "");
    std::fflush(stdout);
  }
  return 0;
}
