// How every audit test is configured and what it prints (one line per audit).
#pragma once

#include <cstdint>
#include <cstdio>

#include "privacy_audit.h"

namespace dptrain::test::audit {

// A CI audit: alpha = 0.01 per bound and fixed seeds, so the outcome is fixed
// once the seeds are chosen (see privacy_audit_test.cpp on soundness).
inline Options ci_options(int runs, int calibration_runs, std::uint64_t seed) {
  Options o;
  o.runs = runs;
  o.calibration_runs = calibration_runs;
  o.alpha = 0.01;
  o.seed = seed;
  return o;
}

// `claim`: the epsilon the bound is compared with, when it is not the model's
// own (e.g. one selection of P-FW); by default the model's claimed epsilon.
inline void print_result(const Result& r, double claim = -1) {
  std::printf("[ audit ] %-48s claimed eps %.4g: lower bound %.4f (point %.4f; FNR %lld/%lld, FPR %lld/%lld",
              r.name.c_str(), claim >= 0 ? claim : r.claimed_epsilon, r.bound.epsilon, r.bound.point_estimate,
              static_cast<long long>(r.counts.false_negatives), static_cast<long long>(r.counts.runs_d),
              static_cast<long long>(r.counts.false_positives), static_cast<long long>(r.counts.runs_d_prime));
  if (r.gap_bound > 0 && r.noiseless_gap >= 0) std::printf(", gap/bound %.3f", r.noiseless_gap / r.gap_bound);
  if (r.ceiling >= 0) std::printf(", ceiling %.4f", r.ceiling);
  std::printf(")\n");
}

}  // namespace dptrain::test::audit
