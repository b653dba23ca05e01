#include "core/algorithms/scs13.h"

#include "core/algorithms/whitebox.h"
#include "core/error.h"
#include "core/privacy/rdp_sampled_gaussian.h"

namespace dptrain {

void Scs13::check_arguments(const TrainingConfig& c) const {
  whitebox::check_options(c, "scs13", {"gaussian_calibration", "accountant", "schedule_c"});
  (void) whitebox::required_epsilon(c, "scs13");
  const bool pure = c.delta.value_or(0.0) == 0.0;
  if (pure && (c.options.contains("gaussian_calibration") || c.options.contains("accountant")))
    fail(ErrorKind::InvalidParameter, "options.gaussian_calibration and options.accountant apply to (epsilon, delta)-DP only",
         {}, "Pass delta > 0 for Gaussian noise, or drop the option.");
  if (pure) return;
  const std::string accountant = whitebox::string_option(c, "accountant", "basic");
  if (accountant == "basic") (void) whitebox::calibration(c);
  else if (accountant != "rdp")
    fail(ErrorKind::InvalidParameter, "unknown accountant \"" + accountant + "\" for scs13", {},
         "Use options => '{\"accountant\": \"basic\"}' or '{\"accountant\": \"rdp\"}'.");
  else if (c.options.contains("gaussian_calibration"))
    fail(ErrorKind::InvalidParameter, "options.gaussian_calibration does not apply to accountant 'rdp'");
}

namespace {

double projection_radius(const TrainingConfig& c) { return c.radius.value_or(c.lambda > 0 ? 1.0 / c.lambda : 0.0); }

// epsilon-DP: l2-Laplace noise on every batch's gradient sum.
void plan_laplace_noise(double sensitivity, double pass_epsilon, TrainingPlan& p) {
  // Density prop. to exp(-pass_epsilon ||z|| / Delta): each update is
  // pass_epsilon-DP w.r.t. the rows of its batch.
  p.epoch.noise = privacy::BatchNoiseKind::L2Laplace;
  p.epoch.noise_scale = sensitivity / pass_epsilon;
  p.privacy["notion"] = "epsilon-DP";
  p.privacy["noise"] = "l2_laplace";
  p.privacy["noise_scale"] = p.epoch.noise_scale;
  p.privacy["pass_epsilon"] = pass_epsilon;
  p.privacy["composition"] = "parallel within a pass (disjoint batches), basic over passes";
}

// (epsilon, delta)-DP: Gaussian noise on every batch's gradient sum, its
// scale by the accountant of options.accountant over the k passes.
void plan_gaussian_noise(const TrainingConfig& c, double sensitivity, double pass_epsilon, TrainingPlan& p) {
  const double epsilon = *c.epsilon;
  const double delta = c.delta.value_or(0.0);
  const int k = c.epochs;
  const std::string accountant = whitebox::string_option(c, "accountant", "basic");
  p.epoch.noise = privacy::BatchNoiseKind::Gaussian;
  p.privacy["notion"] = "(epsilon, delta)-DP";
  p.privacy["noise"] = "gaussian";
  if (accountant == "basic") {
    const privacy::GaussianCalibration method = whitebox::calibration(c);
    p.epoch.noise_scale = privacy::gaussian_sigma(sensitivity, pass_epsilon, delta / k, method);
    p.privacy["calibration"] = privacy::gaussian_calibration_name(method);
    p.privacy["pass_epsilon"] = pass_epsilon;
    p.privacy["pass_delta"] = delta / k;
    p.privacy["composition"] = "parallel within a pass (disjoint batches), basic over passes";
  } else if (accountant == "rdp") {
    if (c.options.contains("gaussian_calibration"))
      fail(ErrorKind::InvalidParameter, "options.gaussian_calibration does not apply to accountant 'rdp'");
    // One pass = one Gaussian mechanism per row (q = 1): RDP alpha / (2 z^2)
    // for noise multiplier z = sigma / Delta; k passes add up. The
    // accountant's q = 1 case is exactly this plain Gaussian, for the
    // sensitivity under our (replace-one) adjacency.
    const privacy::RdpNoise r = privacy::sampled_gaussian_noise_multiplier(1.0, k, epsilon, delta);
    p.epoch.noise_scale = r.noise_multiplier * sensitivity;
    p.privacy["noise_multiplier"] = r.noise_multiplier;
    p.privacy["rdp_epsilon"] = r.epsilon;
    p.privacy["rdp_order"] = r.optimal_order;
    p.privacy["composition"] = "parallel within a pass (disjoint batches), RDP over passes";
  } else {
    fail(ErrorKind::InvalidParameter, "unknown accountant \"" + accountant + "\" for scs13", {},
         "Use options => '{\"accountant\": \"basic\"}' or '{\"accountant\": \"rdp\"}'.");
  }
  p.privacy["sigma"] = p.epoch.noise_scale;
}

}  // namespace

void Scs13::check_run_arguments(const TrainingConfig& c) const {
  check_schedule(c, whitebox::schedule_kind(c),
                 loss_constants(parse_loss(c.loss), c.feature_bound, c.lambda, projection_radius(c), c.huber_h));
}

TrainingPlan Scs13::plan(const TrainingConfig& c) const {
  validate_common(c);
  check_arguments(c);
  const double epsilon = *c.epsilon;
  const double delta = c.delta.value_or(0.0);
  const bool pure = delta == 0.0;

  const double radius = projection_radius(c);
  TrainingPlan p = whitebox::base_plan(c, radius);
  const ScheduleKind kind = whitebox::schedule_kind(c);
  p.epoch.schedule = plan_schedule(c, kind, p.constants, kDefaultLearningRate);

  const int k = c.epochs;
  const double sensitivity = whitebox::gradient_sum_sensitivity(c);
  const double pass_epsilon = epsilon / k;
  p.privacy = {{"private", true},
               {"mechanism", "scs13: noise on every mini-batch gradient sum, inside the epoch aggregate"},
               {"adjacency", "replace-one"},
               {"sensitivity", sensitivity},
               {"passes", k},
               {"updates", static_cast<std::int64_t>(k) * c.updates_per_epoch()}};
  if (pure)
    plan_laplace_noise(sensitivity, pass_epsilon, p);
  else
    plan_gaussian_noise(c, sensitivity, pass_epsilon, p);
  // An extreme epsilon or sensitivity can leave a scale no sampler can draw (inf, or draws that
  // round to inf): refused here, before the budget is charged, not at the first batch.
  privacy::require_batch_noise_scale(p.epoch.noise, p.epoch.noise_scale,
                                     static_cast<std::size_t>(c.dim) * static_cast<std::size_t>(c.models()));
  whitebox::warn_if_delta_large(c, delta, p);
  p.epsilon = epsilon;
  p.delta = delta;
  return p;
}

}  // namespace dptrain
