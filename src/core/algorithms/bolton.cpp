#include "core/algorithms/bolton.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/privacy/bolton_sensitivity.h"
#include "core/privacy/gaussian_calibration.h"
#include "core/privacy/parameter_checks.h"
#include "core/privacy/samplers.h"
#include "core/privacy/messages.h"

namespace dptrain {
namespace {

using privacy::show;

namespace pb = privacy::bolton;

[[noreturn]] void bad(const std::string& message, const std::string& hint = {}, const std::string& detail = {}) {
  fail(ErrorKind::InvalidParameter, message, detail, hint);
}

// options keys bolton understands; anything else is a typo worth an error.
const std::vector<std::string> kOptionKeys = {"schedule_c", "gaussian_calibration", "tolerance", "multiclass_noise"};

// kind: the run's schedule; nullopt (check_arguments, before the charge):
// only what neither the schedule nor lambda decides.
void check_options(const TrainingConfig& c, std::optional<ScheduleKind> kind, bool pure) {
  for (const auto& [key, value] : c.options.items()) {
    if (std::find(kOptionKeys.begin(), kOptionKeys.end(), key) == kOptionKeys.end())
      bad("unknown option \"" + key + "\" for algorithm \"bolton\"",
          "Bolton options: schedule_c, gaussian_calibration, tolerance, multiclass_noise.");
  }
  if (c.options.contains("schedule_c")) {
    if (!c.options["schedule_c"].is_number()) bad("options.schedule_c must be a number",
                                                        "c of the decreasing step 2/(beta (t + m^c)), e.g. '{\"schedule_c\": 0.5}'.");
    if (kind && *kind != ScheduleKind::Decreasing && *kind != ScheduleKind::Sqrt)
      bad("options.schedule_c applies only to the decreasing and sqrt schedules",
          "Pass schedule => 'decreasing' or 'sqrt', or drop options.schedule_c.");
  }
  if (c.options.contains("tolerance")) {
    const auto& t = c.options["tolerance"];
    if (!t.is_number() || !(t.get<double>() > 0 && t.get<double>() < 1))
      bad("options.tolerance must be a number in (0, 1)", "E.g. 0.01: stop when an epoch improves the objective by < 1%.");
    // Bolt-on §4.3: only the strongly convex bound is independent of the
    // number of epochs; in the convex case it grows with k (docs/pitfalls.md §P3).
    if (kind && c.lambda <= 0)
      bad("options.tolerance needs lambda > 0",
          "In the convex case the sensitivity grows with the number of epochs, so it must be fixed in advance "
          "(Bolt-on §4.3); pass lambda > 0 or drop the tolerance.");
    if (kind && *kind != ScheduleKind::StronglyConvex)
      bad("options.tolerance needs the strongly_convex schedule", "Drop schedule and learning_rate.");
  }
  if (c.options.contains("multiclass_noise")) {
    const auto& m = c.options["multiclass_noise"];
    if (!m.is_string() || (m != "per_model" && m != "joint"))
      bad("options.multiclass_noise must be 'per_model' or 'joint'",
          "'per_model' (default): each one-vs-all model gets epsilon/K, delta/K; 'joint': one Gaussian release "
          "of all K models with sensitivity sqrt(K) Delta.");
    if (pure && m == "joint")
      bad("options.multiclass_noise 'joint' applies only to (epsilon, delta)-DP",
          "For pure epsilon-DP the joint L2-Laplace release adds as much noise per model as the per-model split; "
          "pass delta > 0 or drop the option.");
  }
  if (c.options.contains("gaussian_calibration")) {
    if (!c.options["gaussian_calibration"].is_string()) bad("options.gaussian_calibration must be a string",
                                                                          "One of 'analytic' (default), 'classic' or 'amp'.");
    if (pure)
      bad("options.gaussian_calibration applies only to (epsilon, delta)-DP",
          "Pass delta > 0 for Gaussian noise, or drop the option for pure epsilon-DP.");
    (void) privacy::parse_gaussian_calibration(c.options["gaussian_calibration"].get<std::string>());
  }
}

// Which schedule the run uses (Bolt-on Algorithms 1 and 2 and §3.2.1's
// corollaries), with a clear error for combinations no lemma covers.
ScheduleKind choose_schedule(const TrainingConfig& c, bool strongly_convex) {
  if (strongly_convex) {
    const ScheduleKind kind = c.schedule ? parse_schedule(*c.schedule)
                                         : (c.learning_rate ? ScheduleKind::Constant : ScheduleKind::StronglyConvex);
    if (kind == ScheduleKind::StronglyConvex) {
      if (c.learning_rate)
        bad("learning_rate is not used by the strongly_convex schedule",
            "Drop learning_rate (the step is min(1/beta, 1/(lambda t))), or use schedule => 'constant'.");
      return kind;
    }
    if (kind == ScheduleKind::Constant) {
      if (!c.learning_rate)
        bad("the constant schedule with lambda > 0 needs learning_rate",
            "Pass learning_rate <= 1/beta (Bolt-on Lemma 7), or omit schedule for min(1/beta, 1/(lambda t)).");
      return kind;
    }
    bad("schedule \"" + schedule_name(kind) + "\" is not available for bolton with lambda > 0",
        "With lambda > 0 use schedule => 'strongly_convex' (default) or 'constant' with learning_rate; "
        "the decreasing and sqrt schedules are for lambda = 0.");
  }
  const ScheduleKind kind = c.schedule ? parse_schedule(*c.schedule) : ScheduleKind::Constant;
  switch (kind) {
    case ScheduleKind::Constant: return kind;
    case ScheduleKind::Decreasing:
    case ScheduleKind::Sqrt:
      if (c.learning_rate)
        bad("learning_rate is not used by the " + schedule_name(kind) + " schedule",
            "Drop learning_rate (the step is 2/(beta (t + m^c))), or use schedule => 'constant'.");
      return kind;
    case ScheduleKind::StronglyConvex:
      bad("the strongly_convex schedule needs lambda > 0", "Pass lambda > 0, or use constant, decreasing or sqrt.");
    case ScheduleKind::InverseSqrt:
      bad("the inverse_sqrt schedule has no Bolt-on sensitivity bound",
          "Use schedule constant, decreasing or sqrt (lambda = 0), or strongly_convex (lambda > 0).");
  }
  bad("unknown schedule");
}

// The noise block of plan.privacy for a per-model L2-sensitivity bound
// `sensitivity` (with its rule): "sensitivity", "sensitivity_rule",
// "per_model_epsilon", "per_model_delta" and "noise", which release() adds.
// The one formula of bolt-on's noise, used by plan() and by
// calibrate_output_noise() (a smaller bound the engine proved for the run
// it executes).
//
// One-vs-all: K models on the same rows (docs/pitfalls.md §P19). Per model (default):
// sequential (basic) composition, each model gets (epsilon/K, delta/K).
// Joint ((epsilon, delta) only): the K x d matrix is one Gaussian release;
// replacing a row moves every model by at most Delta (each model's bound
// holds whatever its labels), so the matrix moves by at most sqrt(K) Delta
// in Frobenius norm, and isotropic noise calibrated to that sensitivity
// at the full (epsilon, delta) covers all K models at once.
// Pure epsilon-DP: L2-Laplace, Gamma scale Delta/epsilon (Bolt-on Theorem 1);
// (epsilon, delta): Gaussian sigma of the chosen calibration.
void write_noise(const TrainingConfig& c, int K, double sensitivity, const std::string& rule, nlohmann::json& privacy) {
  const bool pure = !c.delta || *c.delta == 0.0;
  const bool joint = !pure && c.options.value("multiclass_noise", std::string("per_model")) == "joint";
  const int shares = joint ? 1 : K;
  BoltonNoise noise;
  noise.sensitivity = joint ? std::sqrt(static_cast<double>(K)) * sensitivity : sensitivity;
  noise.epsilon = *c.epsilon / shares;
  std::string calibration;
  if (pure) {
    noise.distribution = BoltonNoise::Distribution::L2Laplace;
    noise.scale = noise.sensitivity / noise.epsilon;
  } else {
    noise.distribution = BoltonNoise::Distribution::Gaussian;
    noise.delta = *c.delta / shares;
    const privacy::GaussianCalibration method =
        privacy::parse_gaussian_calibration(c.options.value("gaussian_calibration", std::string("analytic")));
    calibration = privacy::gaussian_calibration_name(method);
    try {
      noise.scale = privacy::gaussian_sigma(noise.sensitivity, noise.epsilon, noise.delta, method);
    } catch (const Error& e) {
      if (shares == 1) throw;
      // Say which epsilon the calibration saw: the per-model share.
      throw Error(e.kind(), e.what(),
                  "Each of the " + std::to_string(K) + " one-vs-all models gets epsilon/K = " + show(noise.epsilon) +
                      " and delta/K = " + show(noise.delta) + ".",
                  e.hint(), e.sqlstate());
    }
  }
  // An extreme lambda or epsilon can make the scale 0 (underflow) or
  // infinite: refused when planning, not at the release after the epochs.
  if (!(noise.scale > 0) || !std::isfinite(noise.scale))
    bad("the output noise scale of bolton is not a positive finite number",
        "Use a lambda and an epsilon of ordinary magnitude (e.g. lambda 1e-4 .. 1, epsilon 0.01 .. 100).",
        "sensitivity " + show(noise.sensitivity) + ", epsilon " + show(noise.epsilon) + ", scale " + show(noise.scale) +
            ".");
  // A finite scale can still be too large to draw (draws rounding to inf): refused when
  // planning too (samplers.h), not by the sampler at the release.
  if (pure)
    privacy::require_drawable_l2_laplace(noise.scale, static_cast<std::size_t>(c.dim));
  else
    privacy::require_drawable_gaussian(noise.scale);
  nlohmann::json noise_json = noise.to_json();
  if (!pure) noise_json["calibration"] = calibration;
  if (pure) noise_json["expected_norm"] = c.dim * noise.scale;
  privacy["sensitivity"] = sensitivity;
  privacy["sensitivity_rule"] = rule;
  privacy["per_model_epsilon"] = noise.epsilon;
  privacy["per_model_delta"] = noise.delta;
  privacy["noise"] = noise_json;
}

// The sensitivity the noise covers: of the run's epochs or, with a
// convergence tolerance, the largest over every epoch the run may stop
// after, k' <= k (Lemma 8's bound holds for each fixed k'; choosing k' from
// the data is the informal step).
pb::Bound covered_sensitivity(const TrainingConfig& c, const TrainingPlan& p) {
  pb::RunShape shape;
  shape.rows = c.rows;
  shape.batch_size = c.batch_size;
  shape.epochs = c.epochs;
  const pb::Output output = c.averaging ? pb::Output::UniformAverage : pb::Output::LastIterate;
  pb::Bound bound = pb::sensitivity(p.epoch.schedule, p.constants, shape, output);
  if (c.options.contains("tolerance")) {
    for (int k = 1; k < c.epochs; ++k) {
      shape.epochs = k;
      const pb::Bound shorter = pb::sensitivity(p.epoch.schedule, p.constants, shape, output);
      if (shorter.sensitivity > bound.sensitivity) bound = shorter;
    }
  }
  return bound;
}

// The plan's privacy metadata before its noise (write_noise adds that).
nlohmann::json privacy_metadata(const TrainingConfig& c, const TrainingPlan& p, const pb::Bound& bound, bool pure,
                                bool joint) {
  const int K = p.epoch.models;
  return {
      {"private", true},
      {"notion", pure ? "epsilon-DP" : "(epsilon, delta)-DP"},
      {"epsilon", *p.epsilon},
      {"delta", *p.delta},
      {"adjacency", "replace-one: neighbouring tables differ in one row (features and label)"},
      {"n_public", true},
      {"mechanism", "output perturbation of permutation SGD (Bolt-on, Wu et al. SIGMOD 2017)"},
      {"convexity", bound.strongly_convex ? "strongly convex" : "convex"},
      {"released_iterate", c.averaging ? "uniform average of all iterates" : "last iterate"},
      {"lipschitz", p.constants.lipschitz},
      {"smoothness", p.constants.smoothness},
      {"strong_convexity", p.constants.strong_convexity},
      {"models", K},
      {"multiclass_noise", joint ? "joint" : "per_model"},
      {"composition", K == 1 ? "single model"
                      : joint ? "joint Gaussian release of the K one-vs-all models (sensitivity sqrt(K) Delta of "
                                "the K x d weight matrix, full epsilon and delta)"
                              : "basic composition over the one-vs-all models (each gets epsilon/K, delta/K)"},
      {"epochs_fixed_in_advance", p.stop_tolerance == 0},
  };
}

}  // namespace

// --- the noise ------------------------------------------------------------------

nlohmann::json BoltonNoise::to_json() const {
  if (distribution == Distribution::L2Laplace)
    return {{"distribution", "l2_laplace"},
            {"description", "density proportional to exp(-epsilon ||v|| / sensitivity): ||v|| ~ Gamma(d, sensitivity/epsilon), direction uniform on the sphere (Bolt-on Theorem 1)"},
            {"sensitivity", sensitivity},
            {"epsilon", epsilon},
            {"gamma_scale", scale}};
  return {{"distribution", "gaussian"},
          {"sensitivity", sensitivity},
          {"epsilon", epsilon},
          {"delta", delta},
          {"sigma", scale}};
}

BoltonNoise BoltonNoise::from_json(const nlohmann::json& j) {
  BoltonNoise n;
  const std::string d = j.at("distribution").get<std::string>();
  if (d == "l2_laplace") {
    n.distribution = Distribution::L2Laplace;
    n.scale = j.at("gamma_scale").get<double>();
  } else if (d == "gaussian") {
    n.distribution = Distribution::Gaussian;
    n.delta = j.at("delta").get<double>();
    n.scale = j.at("sigma").get<double>();
  } else {
    fail(ErrorKind::Internal, "unknown bolton noise distribution \"" + d + "\"");
  }
  n.sensitivity = j.at("sensitivity").get<double>();
  n.epsilon = j.at("epsilon").get<double>();
  if (!(n.scale > 0) || !std::isfinite(n.scale)) fail(ErrorKind::Internal, "invalid bolton noise scale");
  if (n.distribution == Distribution::L2Laplace && std::abs(n.scale - n.sensitivity / n.epsilon) > 1e-12 * n.scale)
    fail(ErrorKind::Internal, "inconsistent bolton noise record");
  return n;
}

void BoltonNoise::add_to(WeightMatrix& w, privacy::RandomSource& rng) const {
  // One independent draw per model (row of the row-major matrix), added in place.
  const auto d = static_cast<std::size_t>(w.cols());
  std::vector<double> direction(d);
  for (Eigen::Index k = 0; k < w.rows(); ++k) {
    if (distribution == Distribution::L2Laplace) {
      privacy::add_l2_laplace_noise(rng, w.row(k).data(), d, scale, direction.data());  // scale = Delta / eps
    } else {
      privacy::add_gaussian_noise(rng, w.row(k).data(), d, scale);
    }
  }
}

// --- the plan ----------------------------------------------------------------------

void Bolton::check_arguments(const TrainingConfig& c) const {
  if (!c.epsilon)
    bad("algorithm \"bolton\" needs epsilon",
        "Pass epsilon => ... (pure epsilon-DP), and delta => ... for (epsilon, delta)-DP.");
  (void) parse_loss(c.loss);
  check_options(c, std::nullopt, !c.delta || *c.delta == 0.0);
  // What choose_schedule refuses whatever lambda is (dp_tune's grid sets it per candidate).
  const std::optional<ScheduleKind> kind =
      c.schedule ? std::optional<ScheduleKind>(parse_schedule(*c.schedule)) : std::nullopt;
  const bool decreasing = kind == ScheduleKind::Decreasing || kind == ScheduleKind::Sqrt;
  if (kind == ScheduleKind::InverseSqrt)
    bad("the inverse_sqrt schedule has no Bolt-on sensitivity bound",
        "Use schedule constant, decreasing or sqrt (lambda = 0), or strongly_convex (lambda > 0).");
  if (c.options.contains("schedule_c") && !decreasing)
    bad("options.schedule_c applies only to the decreasing and sqrt schedules",
        "Pass schedule => 'decreasing' or 'sqrt', or drop options.schedule_c.");
  if (decreasing && c.learning_rate)
    bad("learning_rate is not used by the " + schedule_name(*kind) + " schedule",
        "Drop learning_rate (the step is 2/(beta (t + m^c))), or use schedule => 'constant'.");
}

// Everything here is an argument of the run (lambda, radius, loss, row
// bound, schedule, step), none a fact of the data: beta is the loss's
// smoothness at the row bound plus lambda, as the plan's constants.
void Bolton::check_run_arguments(const TrainingConfig& c) const {
  const bool strongly_convex = c.lambda > 0;
  const ScheduleKind kind = choose_schedule(c, strongly_convex);
  check_options(c, kind, !c.delta || *c.delta == 0.0);
  const double radius = strongly_convex ? c.radius.value_or(1.0 / c.lambda) : 0.0;
  const LossConstants k = loss_constants(parse_loss(c.loss), c.feature_bound, c.lambda, radius, c.huber_h);
  check_schedule(c, kind, k);
  // The plan's default step is at most 2/beta (below); a given one is checked
  // as the sensitivity bound checks it (bolton_sensitivity.h).
  if (kind == ScheduleKind::Constant && c.learning_rate) {
    if (strongly_convex) privacy::require_strongly_convex_step(*c.learning_rate, k.smoothness);
    else privacy::require_convex_step(*c.learning_rate, k.smoothness);
  }
}

TrainingPlan Bolton::plan(const TrainingConfig& c) const {
  validate_common(c);
  check_arguments(c);
  check_run_arguments(c);
  const double epsilon = *c.epsilon;
  const bool pure = !c.delta || *c.delta == 0.0;
  const double delta = pure ? 0.0 : *c.delta;
  const bool strongly_convex = c.lambda > 0;
  const LossKind loss = parse_loss(c.loss);
  const ScheduleKind kind = choose_schedule(c, strongly_convex);
  check_options(c, kind, pure);

  TrainingPlan p = base_plan(c);  // epochs fixed before any data is read (docs/pitfalls.md §P3)
  // Strongly convex: L = L_x + lambda R holds only on ||w|| <= R, so project
  // after every update (the engine does whenever radius > 0; docs/pitfalls.md §P17).
  p.epoch.radius = strongly_convex ? c.radius.value_or(1.0 / c.lambda) : c.radius.value_or(0.0);
  p.constants = loss_constants(loss, c.feature_bound, c.lambda, strongly_convex ? p.epoch.radius : 0.0, c.huber_h);

  // Convex default step: eta = 1/sqrt(m) (Bolt-on §4.3), capped at 2/beta so
  // the expansiveness precondition of Lemma 1 holds (m is public).
  const double default_eta = std::min(1.0 / std::sqrt(static_cast<double>(c.rows)), 2.0 / p.constants.smoothness);
  p.epoch.schedule = plan_schedule(c, kind, p.constants, default_eta);

  if (c.options.contains("tolerance")) p.stop_tolerance = c.options["tolerance"].get<double>();
  const pb::Bound bound = covered_sensitivity(c, p);

  p.epsilon = epsilon;
  p.delta = delta;
  const int K = p.epoch.models;
  const bool joint = !pure && c.options.value("multiclass_noise", std::string("per_model")) == "joint";
  p.privacy = privacy_metadata(c, p, bound, pure, joint);
  write_noise(c, K, bound.sensitivity, bound.rule, p.privacy);
  if (p.stop_tolerance > 0) {
    p.privacy["guarantee"] =
        "informal: the run stops when an epoch improves the training objective by less than the tolerance, so the "
        "number of epochs depends on the data; the noise covers every stopping epoch up to the maximum (Lemma 8 "
        "for each fixed k), but the paper's argument for the data-dependent choice is informal (Bolt-on §4.3)";
    p.warnings.push_back("options.tolerance: the number of epochs depends on the data; the privacy argument for "
                         "this is informal (Bolt-on §4.3)");
  }
  if (!pure && delta >= 1.0 / static_cast<double>(c.rows))
    p.warnings.push_back("delta = " + show(delta) + " is not below 1/n = " + show(1.0 / static_cast<double>(c.rows)) +
                         ": a mechanism that publishes one random row in the clear satisfies such a guarantee; "
                         "use delta << 1/n (e.g. 1/n^2)");
  return p;
}

bool Bolton::calibrate_output_noise(const TrainingConfig& c, TrainingPlan& plan, double sensitivity,
                                    const std::string& rule) const {
  const double planned = plan.privacy.at("sensitivity").get<double>();
  // Only ever less noise for a bound proven smaller; anything else is a bug of the caller.
  if (!(sensitivity > 0) || !(sensitivity <= planned) || !c.epsilon)
    fail(ErrorKind::Internal, "bolton: re-calibration to a sensitivity that is not a smaller positive bound");
  write_noise(c, plan.epoch.models, sensitivity, rule, plan.privacy);
  return true;
}

void Bolton::release(const TrainingConfig&, const TrainingPlan& plan, WeightMatrix& weights,
                     privacy::RandomSource& rng) const {
  BoltonNoise::from_json(plan.privacy.at("noise")).add_to(weights, rng);
}

}  // namespace dptrain
