// AMP (and the non-private optimum) run in memory: the prototype the
// benchmarks measure accuracy with. NOT the engine: the database runs AMP
// through the engine's gradient passes; this computes the same sums over
// rows held in RAM (core/optim/in_memory_glm.h) and follows the same plan.
#pragma once

#include <string>

#include "core/algorithms/amp_plan.h"
#include "core/algorithms/optimum.h"
#include "core/optim/in_memory_glm.h"
#include "core/privacy/random_source.h"

namespace dptrain::bench {

struct InMemoryOutcome {
  bool released = false;
  WeightMatrix weights;   // K x d (released only)
  int passes = 0;         // passes over the data
  std::string failure;    // not released: why
};

// Algorithm 1 with `plan` on `data` (whose rows the caller built with
// clip_bound = plan.lipschitz): b1 first, the lockstep minimization to
// gamma, then b2. Nothing is released when the minimization fails.
InMemoryOutcome run_amp(const amp::AmpPlan& plan, const optim::InMemoryGlm& data, privacy::RandomSource& rng);

// The non-private optimum of `plan` on `data` (rows clipped to plan.feature_bound).
InMemoryOutcome run_optimum(const optimum::OptimumPlan& plan, const optim::InMemoryGlm& data);

// Fraction of rows whose predicted class is right: sign(<w, x>) for a binary
// model (class 1 iff > 0), argmax_k <w_k, x> for one-vs-all.
double accuracy(const WeightMatrix& weights, const optim::RowMatrix& x, const std::vector<int>& classes);

}  // namespace dptrain::bench
