#include "core/algorithms/bst14.h"

#include <algorithm>
#include <cmath>

#include "core/algorithms/whitebox.h"
#include "core/error.h"
#include "core/privacy/composition.h"
#include "core/sgd/batch_sampler.h"

namespace dptrain {

Bst14Budget bst14_budget(std::int64_t rows, std::int64_t batch_size, int epochs, double epsilon, double delta,
                         double sensitivity, privacy::GaussianCalibration calibration,
                         Bst14Amplification amplification) {
  Bst14Budget b;
  b.updates = static_cast<std::int64_t>(epochs) * batches_per_epoch(rows, batch_size);
  const double T = static_cast<double>(b.updates);
  b.delta_prime = delta / 2;
  b.delta_step = delta / (2 * T);
  // Advanced composition (Dwork, Rothblum & Vadhan 2010): T updates, each
  // (epsilon_1, delta_1)-DP, are (sqrt(2T ln(1/delta')) eps_1 + T eps_1 (e^eps_1 - 1),
  // T delta_1 + delta')-DP = (epsilon, delta).
  b.epsilon_step = privacy::advanced_composition_step_epsilon(epsilon, b.updates, b.delta_prime);
  b.sampling_rate = static_cast<double>(batch_size) / static_cast<double>(rows);
  const double q = b.sampling_rate;
  if (amplification == Bst14Amplification::Exact) {
    // Solve ln(1 + q (e^eps_0 - 1)) = eps_1 for eps_0.
    b.epsilon_0 = std::log1p(std::expm1(b.epsilon_step) / q);
  } else {
    // BST14: for eps_0 <= 1, ln(1 + q (e^eps_0 - 1)) <= 2 q eps_0.
    b.epsilon_0 = std::min(1.0, b.epsilon_step / (2 * q));
  }
  b.delta_0 = b.delta_step / q;
  if (!(b.delta_0 < 1))
    fail(ErrorKind::InvalidParameter, "delta is too large for bst14",
         "The per-update delta before amplification, delta / (2 T q), is " + std::to_string(b.delta_0) + ".",
         "Use a smaller delta (typically below 1/n).");
  b.sigma = privacy::gaussian_sigma(sensitivity, b.epsilon_0, b.delta_0, calibration);
  return b;
}

void Bst14::check_arguments(const TrainingConfig& c) const {
  whitebox::check_options(c, "bst14", {"gaussian_calibration", "amplification", "schedule_c"});
  (void) whitebox::required_epsilon(c, "bst14");
  if (!c.delta || *c.delta <= 0)
    fail(ErrorKind::InvalidParameter, "algorithm \"bst14\" needs delta > 0",
         "BST14 is (epsilon, delta)-DP only: its analysis rests on advanced composition.",
         "Pass delta => ... (typically below 1/n), or use algorithm => 'scs13' for pure epsilon-DP.");
  if (c.reshuffle)
    fail(ErrorKind::InvalidParameter, "reshuffle does not apply to bst14",
         "BST14 samples every mini-batch afresh; it never scans a permutation.", "Drop reshuffle => true.");
  const std::string amp = whitebox::string_option(c, "amplification", "exact");
  if (amp != "exact" && amp != "linear")
    fail(ErrorKind::InvalidParameter, "unknown amplification \"" + amp + "\"", {},
         "Use options => '{\"amplification\": \"exact\"}' (default) or '{\"amplification\": \"linear\"}'.");
  (void) whitebox::calibration(c);
}

namespace {

// The projection radius: the caller's, or 1/lambda with lambda > 0; a
// convex run has none by default.
double projection_radius(const TrainingConfig& c) {
  if (c.lambda > 0) return c.radius.value_or(1.0 / c.lambda);
  if (!c.radius)
    fail(ErrorKind::InvalidParameter, "bst14 with lambda = 0 needs a radius",
         "Convex BST14 projects onto the ball ||w|| <= R after every update, and its step size "
         "2R / (G sqrt(t)) depends on R.",
         "Pass radius => R, or lambda > 0 for the strongly convex variant.");
  return *c.radius;
}

}  // namespace

void Bst14::check_run_arguments(const TrainingConfig& c) const {
  const double radius = projection_radius(c);
  check_schedule(c, whitebox::schedule_kind(c), loss_constants(parse_loss(c.loss), c.feature_bound, c.lambda, radius, c.huber_h));
}

TrainingPlan Bst14::plan(const TrainingConfig& c) const {
  validate_common(c);
  check_arguments(c);
  check_run_arguments(c);
  const double epsilon = *c.epsilon;
  const double delta = *c.delta;
  const std::string amp = whitebox::string_option(c, "amplification", "exact");
  const privacy::GaussianCalibration method = whitebox::calibration(c);
  const double sensitivity = whitebox::gradient_sum_sensitivity(c);
  const Bst14Budget budget =
      bst14_budget(c.rows, c.batch_size, c.epochs, epsilon, delta, sensitivity, method,
                   amp == "exact" ? Bst14Amplification::Exact : Bst14Amplification::Linear);

  const double radius = projection_radius(c);
  TrainingPlan p = whitebox::base_plan(c, radius);
  p.reshuffle = false;
  const ScheduleKind kind = whitebox::schedule_kind(c);
  // Convex BST14: eta_t = ||C|| / (G sqrt t) with ||C|| = 2R the diameter of the
  // ball and G^2 = L_x^2 + d sigma^2 / b^2 >= E||g~||^2 of the noisy averaged
  // gradient g~ = (sum + N(0, sigma^2 I_d)) / b.
  const double lx = sensitivity / (2.0 * std::sqrt(static_cast<double>(c.models())));
  const double b = static_cast<double>(c.batch_size);
  const double G = std::sqrt(lx * lx + c.dim * budget.sigma * budget.sigma / (b * b));
  p.epoch.schedule = plan_schedule(c, kind, p.constants, 2.0 * radius / G);
  p.epoch.noise = privacy::BatchNoiseKind::Gaussian;
  p.epoch.noise_scale = budget.sigma;
  // Refused before the charge if no sampler can draw it (see scs13.cpp).
  privacy::require_batch_noise_scale(p.epoch.noise, p.epoch.noise_scale,
                                     static_cast<std::size_t>(c.dim) * static_cast<std::size_t>(c.models()));
  p.epoch.sampled_batches = true;

  p.privacy = {{"private", true},
               {"mechanism", "bst14: Gaussian noise on every subsampled mini-batch gradient sum"},
               {"notion", "(epsilon, delta)-DP"},
               {"adjacency", "replace-one"},
               {"sampling", "every batch: b distinct rows uniformly at random, fresh secret randomness"},
               {"sensitivity", sensitivity},
               {"updates", budget.updates},
               {"composition", "advanced"},
               {"delta_prime", budget.delta_prime},
               {"epsilon_step", budget.epsilon_step},
               {"delta_step", budget.delta_step},
               {"sampling_rate", budget.sampling_rate},
               {"amplification", amp},
               {"epsilon_0", budget.epsilon_0},
               {"delta_0", budget.delta_0},
               {"calibration", privacy::gaussian_calibration_name(method)},
               {"noise", "gaussian"},
               {"sigma", budget.sigma}};
  if (c.lambda == 0) p.privacy["gradient_bound_G"] = G;
  whitebox::warn_if_delta_large(c, delta, p);
  p.epsilon = epsilon;
  p.delta = delta;
  return p;
}

}  // namespace dptrain
