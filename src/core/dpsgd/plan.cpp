#include "core/dpsgd/plan.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/privacy/messages.h"
#include "core/privacy/samplers.h"

namespace dptrain::dpsgd {
namespace {

using privacy::show;

void require(bool ok, const std::string& message, const std::string& detail = {}, const std::string& hint = {}) {
  if (!ok) fail(ErrorKind::InvalidParameter, message, detail, hint);
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }

void validate_shape(const DpSgdRequest& r) {
  require(r.rows >= 1, "DP-SGD needs at least one row");
  require(r.dim >= 1 && r.models >= 1, "DP-SGD needs d >= 1 features and K >= 1 models");
  require(r.steps >= 1, "steps (the number of lots T) must be >= 1", "steps = " + std::to_string(r.steps));
  require(finite_positive(r.expected_lot) && r.expected_lot <= static_cast<double>(r.rows),
          "the expected lot size must be in (0, n]", "lot = " + show(r.expected_lot),
          "q = lot / n is the Poisson sampling rate");
  validate_arguments(r);
}

}  // namespace

void validate_arguments(const DpSgdRequest& r) {
  require(finite_positive(r.expected_lot), "the expected lot size must be > 0", "lot = " + show(r.expected_lot));
  require(finite_positive(r.clip_norm), "the clipping norm C must be a finite number > 0",
          "C = " + show(r.clip_norm), "Pass options.clip_norm > 0 (default 1).");
  require(r.delta > 0 && r.delta < 1, "delta must be in (0, 1)", "delta = " + show(r.delta),
          "the RDP accountant gives (epsilon, delta)-DP with delta > 0");
  require(r.epsilon.has_value() != r.noise_multiplier.has_value(),
          "give either a target epsilon or a noise multiplier, not both or neither");
  require(!r.epsilon || finite_positive(*r.epsilon), "epsilon must be a finite number > 0");
  require(!r.noise_multiplier || finite_positive(*r.noise_multiplier),
          "the noise multiplier must be a finite number > 0");
  require(std::isfinite(r.radius) && r.radius >= 0, "radius must be >= 0 (0 = no projection)");
  require(std::isfinite(r.lambda) && r.lambda >= 0, "lambda must be >= 0");
  require(r.beta1 >= 0 && r.beta1 < 1 && r.beta2 >= 0 && r.beta2 < 1, "beta1 and beta2 must be in [0, 1)", {},
          "Adam's defaults are beta1 = 0.9, beta2 = 0.999.");
  require(std::isfinite(r.xi) && r.xi >= 0, "xi must be >= 0");
  require(!r.closed_form_noise || (r.algorithm == "psgd" && r.epsilon),
          "closed-form noise is only for algorithm psgd with a target epsilon");
  const OptimizerKind kind = parse_optimizer(r.algorithm);
  require(kind != OptimizerKind::Adadp || r.steps % 2 == 0, "adadp needs an even number of lots",
          "its lots come in pairs (full step vs two half steps)");
  require(kind != OptimizerKind::Momentum || (r.momentum && *r.momentum >= 0 && *r.momentum < 1),
          "dpmomentum needs a momentum m in [0, 1)", {}, "Mohapatra et al.'s grid: 0.5, 0.6, ..., 0.99");
  require(!r.learning_rate || finite_positive(*r.learning_rate), "the learning rate must be a finite number > 0");
  require(!r.tolerance || finite_positive(*r.tolerance), "the ADADP tolerance must be a finite number > 0");
}

namespace {

double learning_rate(const DpSgdRequest& r, OptimizerKind kind, double sigma) {
  if (r.learning_rate) {
    require(finite_positive(*r.learning_rate), "the learning rate must be a finite number > 0");
    return *r.learning_rate;
  }
  switch (kind) {
    case OptimizerKind::Adam: return 1e-3;  // Kingma & Ba's default, kept by Mohapatra et al. 2022
    case OptimizerKind::AdamWosm: return adam_wosm_step_size(sigma, r.clip_norm, r.expected_lot);
    case OptimizerKind::Adadp: return 1e-3;  // Koskela & Honkela's eta0
    default:
      fail(ErrorKind::InvalidParameter, r.algorithm + " needs a learning rate", {},
           "Mohapatra et al.'s grid: 0.001, 0.002, 0.005, ..., 1");
  }
}

}  // namespace

double closed_form_psgd_noise_multiplier(double q, std::int64_t steps, double epsilon, double delta) {
  // sigma_avg = 4 L sqrt(T ln(1/delta)) / (n epsilon) on the mean of k = q n gradients of
  // norm <= L is, on their sum, k sigma_avg = 4 q n L sqrt(...) / (n epsilon): in units of L
  // the noise multiplier 4 q sqrt(T ln(1/delta)) / epsilon.
  return 4 * q * std::sqrt(static_cast<double>(steps) * std::log(1 / delta)) / epsilon;
}

namespace {

// The noise multiplier and its RDP account: the closed-form P-SGD noise for
// the claimed epsilon, the noise calibrated to epsilon, or the given noise
// multiplier accounted.
void account_noise(const DpSgdRequest& r, DpSgdPlan* plan) {
  DpSgdPlan& p = *plan;
  if (r.closed_form_noise) {
    const double z = closed_form_psgd_noise_multiplier(p.sampling_rate, r.steps, *r.epsilon, r.delta);
    p.account = privacy::account_sampled_gaussian(p.sampling_rate, z, r.clip_norm, r.steps, r.delta, r.rdp);
    p.epsilon = *r.epsilon;
  } else if (r.epsilon) {
    p.account = privacy::calibrate_sampled_gaussian(p.sampling_rate, r.clip_norm, r.steps, *r.epsilon, r.delta, r.rdp);
    p.epsilon = p.account.epsilon;
  } else {
    p.account = privacy::account_sampled_gaussian(p.sampling_rate, *r.noise_multiplier, r.clip_norm, r.steps,
                                                  r.delta, r.rdp);
    p.epsilon = p.account.epsilon;
  }
}

nlohmann::json privacy_metadata(const DpSgdRequest& r, const DpSgdPlan& p) {
  nlohmann::json privacy = privacy::account_json(p.account);
  privacy["accounted"] = p.accounted;
  privacy["sampling"] = "Poisson (each row independently with probability q), secret per-run key";
  privacy["sensitivity"] = "C: per-example gradients of all K models clipped jointly (Frobenius norm), "
                           "summed, add/remove-one";
  privacy["normalization"] = "divided by the expected lot size q n";
  privacy["models"] = r.models == 1 ? "binary" : "one-vs-all, " + std::to_string(r.models) +
                                                     " models clipped jointly (no budget split)";
  if (!p.accounted) {
    privacy["claimed_epsilon"] = p.epsilon;
    privacy["warning"] = "closed-form P-SGD noise (Iyengar et al. 2019, Alg. 2) is not an accountant's bound; "
                         "\"epsilon\" is what the RDP accountant gives for this noise";
  }
  return privacy;
}

nlohmann::json hyperparameters(const DpSgdRequest& r, OptimizerKind kind, const LotConfig& c) {
  nlohmann::json hyper = {{"algorithm", r.algorithm},       {"expected_lot", r.expected_lot},
                          {"steps", r.steps},               {"clip_norm", r.clip_norm},
                          {"learning_rate", c.learning_rate}, {"radius", r.radius},
                          {"lambda", r.lambda}};
  if (kind == OptimizerKind::Sgd) hyper["step_decay"] = step_decay_name(r.decay);
  if (kind == OptimizerKind::Momentum) hyper["momentum"] = c.momentum;
  if (kind == OptimizerKind::Adam || kind == OptimizerKind::AdamWosm) hyper["beta1"] = r.beta1;
  if (kind == OptimizerKind::Adam) {
    hyper["beta2"] = r.beta2;
    hyper["xi"] = r.xi;
  }
  if (kind == OptimizerKind::AdamWosm && !r.learning_rate) hyper["learning_rate_rule"] = "1e-3 / (sigma C / L + 1e-8)";
  if (kind == OptimizerKind::Adadp) hyper["tolerance"] = c.tolerance;
  return hyper;
}

}  // namespace

DpSgdPlan plan_dpsgd(const DpSgdRequest& r) {
  const OptimizerKind kind = parse_optimizer(r.algorithm);
  validate_shape(r);

  DpSgdPlan p;
  p.sampling_rate = r.expected_lot / static_cast<double>(r.rows);
  p.steps = r.steps;
  p.delta = r.delta;
  p.accounted = !r.closed_form_noise;
  account_noise(r, &p);
  const double sigma = p.account.noise_multiplier;

  LotConfig& c = p.lots;
  c.models = {r.dim, r.models, r.loss, r.huber_h};
  c.rows = r.rows;
  c.sampling_rate = p.sampling_rate;
  c.clip_norm = r.clip_norm;
  c.noise_std = sigma * r.clip_norm;
  require(std::isfinite(c.noise_std), "the clipping norm C is too large: the noise sigma C overflows a double",
          "C = " + show(r.clip_norm) + ", noise multiplier sigma = " + show(sigma),
          "Pass a smaller options.clip_norm (default 1; rows are clipped to it, so C above the row norms adds "
          "only noise).");
  // A finite sigma C can still be too large to draw (draws rounding to inf, samplers.h): refused
  // here, before the charge, not by the sampler at the first lot after it.
  privacy::require_drawable_gaussian(c.noise_std);
  c.expected_lot = r.expected_lot;
  c.optimizer = kind;
  c.learning_rate = learning_rate(r, kind, sigma);
  c.decay = r.decay;
  c.momentum = r.momentum.value_or(0);
  c.beta1 = r.beta1;
  c.beta2 = r.beta2;
  c.xi = r.xi;
  const double parameters = static_cast<double>(r.dim) * r.models;
  c.tolerance = r.tolerance.value_or(std::sqrt(parameters / (2 * static_cast<double>(r.steps))));
  require(finite_positive(c.tolerance), "the ADADP tolerance must be a finite number > 0");
  c.radius = r.radius;
  c.lambda = r.lambda;

  p.metadata = {{"privacy", privacy_metadata(r, p)}, {"hyperparameters", hyperparameters(r, kind, c)}};
  return p;
}

}  // namespace dptrain::dpsgd
