#include "core/training/defaults.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/algorithms/algorithm.h"
#include "core/error.h"
#include "core/loss/loss.h"
#include "core/training/intercept.h"

namespace dptrain::defaults {
namespace {

bool has_delta(const TrainingConfig& c) { return c.delta && *c.delta > 0; }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

// The row bound the algorithm plans with (training/intercept.h).
double row_bound(const TrainingConfig& c) {
  return c.intercept ? intercept::augmented_bound(c) : c.feature_bound;
}

int planned_dim(const TrainingConfig& c) { return c.dim + (c.intercept ? 1 : 0); }

// 1/beta at the row bound, beta = the loss's smoothness + lambda (the regularized objective's).
double inverse_smoothness(const TrainingConfig& c) {
  return 1.0 / (loss_constants(parse_loss(c.loss), row_bound(c), 0.0, 0.0, c.huber_h).smoothness + c.lambda);
}

// lambda > 0 without a step: bolton's own strongly convex schedule min(1/beta, 1/(lambda t))
// (Bolt-on Lemma 8) takes the steps; a constant step of the convex default would exceed its 1/beta.
bool schedule_takes_the_steps(const TrainingConfig& c) {
  return c.lambda > 0 && !c.learning_rate && (!c.schedule || *c.schedule == "strongly_convex");
}

// schedule => 'decreasing' or 'sqrt' without a step: bolton's convex schedules
// 2/(beta (t + m^c)) take the steps, which refuse a learning_rate (filling in
// 1/beta made every such call fail, "learning_rate is not used by the
// decreasing schedule"); their first step is at most 1/beta, which sizes the batch.
bool decreasing_schedule(const TrainingConfig& c) {
  return !c.learning_rate && c.schedule && (*c.schedule == "decreasing" || *c.schedule == "sqrt");
}

}  // namespace

std::string algorithm(const TrainingConfig& c) {
  return c.epsilon && has_delta(c) ? "dpsgd" : "bolton";
}

double bolton_batch_target(const TrainingConfig& c, int epochs, double eta) {
  const double L = row_bound(c);
  return 2.0 * epochs * c.models() * std::sqrt(static_cast<double>(planned_dim(c))) * L * L * eta /
         (kScoreNoise * *c.epsilon);
}

std::int64_t bolton_batch_size(const TrainingConfig& c, int epochs, double eta) {
  const double b = bolton_batch_target(c, epochs, eta);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(b)), 1, std::max<std::int64_t>(c.rows, 1));
}

double default_lambda(const std::string& algorithm) {
  try {
    return make_algorithm(algorithm)->default_lambda();
  } catch (const Error&) {
    return 0.0;  // an unknown name: the run's own checks report it
  }
}

std::string apply(TrainingConfig* c, const Unset& unset) {
  const bool auto_run = unset.algorithm && c->epsilon && c->rows > 0;
  if (unset.lambda) c->lambda = default_lambda(c->algorithm);
  if (!auto_run) {
    if (unset.epochs) c->epochs = kClassicEpochs;
    if (unset.batch_size) c->batch_size = kClassicBatchSize;
    return "";
  }
  if (unset.epochs) c->epochs = kEpochs;
  std::string what;
  if (c->algorithm == "dpsgd") {
    if (unset.batch_size) c->batch_size = std::min<std::int64_t>(kDpsgdLot, c->rows);
    what = "dpsgd (Poisson lots, RDP accountant), epochs " + std::to_string(c->epochs) + ", expected lot " +
           std::to_string(c->batch_size) +
           (c->learning_rate ? ", step " + num(*c->learning_rate) : std::string(", its step 0.5")) + ", clip 1";
  } else {
    const bool given_step = c->learning_rate.has_value();
    const bool scheduled = schedule_takes_the_steps(*c);
    const bool decreasing = decreasing_schedule(*c);
    // The batch is sized with the largest step the run takes (the schedule's first is 1/beta).
    const double step = given_step ? *c->learning_rate : inverse_smoothness(*c);
    if (!given_step && !scheduled && !decreasing) c->learning_rate = step;
    if (unset.batch_size) c->batch_size = bolton_batch_size(*c, c->epochs, step);
    // Capped at n, the batch no longer keeps the noise at its target: on
    // MNIST-10k (n = 8000, d' = 785, K = 10) at epsilon = 1 the target is
    // b = 11,208, and the model released with b = n scored 8.8% on the test
    // rows, below the majority class (11.2%). Said, from the same public inputs.
    const double target = bolton_batch_target(*c, c->epochs, step);
    const std::string capped =
        unset.batch_size && target > static_cast<double>(c->rows)
            ? " (all n rows: its noise target asks for b = " + std::to_string(static_cast<std::int64_t>(std::ceil(target))) +
                  " > n, so the released scores will be mostly noise; a larger epsilon, fewer classes or features, "
                  "or delta > 0 (DP-SGD) do better)"
            : "";
    what = std::string("bolton (") + (c->lambda > 0 ? "strongly convex" : "convex") +
           ", output perturbation), epochs " + std::to_string(c->epochs) + ", batch_size " +
           std::to_string(c->batch_size) + capped +
           (scheduled    ? ", step min(1/beta, 1/(lambda t))"
            : decreasing ? ", " + *c->schedule + " schedule 2/(beta (t + m^c))"
                         : ", learning_rate " + num(step) + (given_step ? "" : " (1/beta)")) +
           ", lambda " + num(c->lambda);
  }
  return "defaults for " + std::string(has_delta(*c) ? "epsilon and delta" : "epsilon only (pure epsilon-DP)") +
         ": " + what + (c->intercept ? ", with an intercept" : "") +
         "; public choices from n, d, epsilon and the loss, never from the data (docs/defaults.md). To tune "
         "them privately use dp_tune (dptrain tune); or pass algorithm and its hyperparameters yourself.";
}

}  // namespace dptrain::defaults
