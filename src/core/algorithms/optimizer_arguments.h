// Argument checks shared by the algorithms that minimize their objective
// with an optimizer (amp, optimum) instead of running SGD epochs.
#pragma once

#include <cstdint>
#include <string>

#include "core/loss/loss.h"
#include "core/training/config.h"

namespace dptrain {

// The public facts of a GLM problem that an optimizer-driven plan carries.
struct GlmProblem {
  LossKind loss = LossKind::Logistic;
  double huber_h = kDefaultHuberH;
  std::int64_t rows = 0;  // n
  int dim = 0;            // d
  int models = 1;         // K one-vs-all models (1 for binary)
};

GlmProblem glm_problem(const TrainingConfig& config);

// validate_arguments, then throws Error(InvalidParameter) if an SGD-only
// argument (learning_rate, schedule, radius, averaging, reshuffle) is set:
// refused rather than silently ignored.
void validate_optimizer_arguments(const TrainingConfig& config, const std::string& algorithm);

// validate_common's checks of the public data facts (n, d, classes), without
// its batch_size <= n check: batch_size means nothing to these algorithms,
// so its default (50) must not refuse a small table.
void validate_data_facts(const TrainingConfig& config);

}  // namespace dptrain
