// bench/privacy_audit: the long empirical privacy audit (the CI version is
// test/privacy/privacy_audit_test.cpp; the harness and the scenarios are in
// test/privacy/audit/). For every scenario it prints the claimed epsilon,
// the Clopper-Pearson lower bound on the true epsilon (confidence 1 - alpha),
// the raw point estimate, the error counts and the time taken.
//
//   build/bench/privacy_audit [--runs 50000] [--calibration-runs 5000] [--alpha 0.01]
//                             [--seed 1] [--random-order] [--only SUBSTRING] [--broken-epsilon 0.25]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "../test/privacy/audit/scenarios.h"

namespace au = dptrain::test::audit;

int main(int argc, char** argv) {
  CLI::App app{"empirical privacy audit of bolt-on (and of a deliberately broken variant)"};
  au::Options o;
  o.runs = 50000;
  o.calibration_runs = 5000;
  o.alpha = 0.01;
  std::string only;
  double broken_epsilon = 0.25;
  app.add_option("--runs", o.runs, "evaluation runs per table")->capture_default_str();
  app.add_option("--calibration-runs", o.calibration_runs, "calibration runs per table")->capture_default_str();
  app.add_option("--alpha", o.alpha, "1 - confidence of the bound")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the audit's randomness")->capture_default_str();
  app.add_flag("--random-order", o.random_order, "a fresh random row order per run (default: fixed worst order)");
  app.add_option("--only", only, "run only scenarios whose name contains this");
  app.add_option("--broken-epsilon", broken_epsilon, "claimed epsilon of the broken variants")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<au::Scenario> scenarios = au::bolton_scenarios();
  for (auto& s : au::broken_scenarios(broken_epsilon)) scenarios.push_back(s);
  for (auto& s : au::whitebox_scenarios()) scenarios.push_back(s);
  const au::Neighbours n = au::standard_neighbours();
  std::printf("runs %d + %d calibration per table, alpha %.3g, seed %llu, %s order\n", o.runs, o.calibration_runs,
              o.alpha, static_cast<unsigned long long>(o.seed), o.random_order ? "random" : "fixed");
  std::printf("%-48s %8s %9s %10s %10s %9s %8s %8s %7s\n", "scenario", "claimed", "eps_lb", "point_est", "gap/sens",
              "FNR", "FPR", "cal_lb", "secs");
  for (const auto& s : scenarios) {
    if (!only.empty() && s.name.find(only) == std::string::npos) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const au::Result r = au::run_audit(s, n, o);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char gap[16] = "-";  // only for algorithms with a noiseless variant and a recorded sensitivity
    if (r.sensitivity > 0 && r.noiseless_gap >= 0) std::snprintf(gap, sizeof(gap), "%.4f", r.noiseless_gap / r.sensitivity);
    std::printf("%-48s %8.4g %9.4f %10.4f %10s %9.5f %8.5f %8.4f %7.1f%s\n", r.name.c_str(), r.claimed_epsilon,
                r.bound.epsilon, r.bound.point_estimate, gap,
                static_cast<double>(r.counts.false_negatives) / r.counts.runs_d,
                static_cast<double>(r.counts.false_positives) / r.counts.runs_d_prime, r.calibration_bound, secs,
                r.bound.epsilon > r.claimed_epsilon ? "  <- EXCEEDS THE CLAIM" : "");
    std::fflush(stdout);
  }
  return 0;
}
