#include "core/algorithms/amp_plan.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/algorithms/optimizer_arguments.h"
#include "core/algorithms/whitebox.h"
#include "core/error.h"
#include "core/privacy/gaussian_calibration.h"
#include "core/privacy/samplers.h"
#include "core/privacy/messages.h"

namespace dptrain::amp {
namespace {

using privacy::show;

[[noreturn]] void bad(const std::string& message, const std::string& hint = {}) {
  fail(ErrorKind::InvalidParameter, message, {}, hint);
}

// Sec. V-A's hyperparameter-free values.
constexpr double kFreeF = 0.01;
// (Sec. V-A's L = 1 is the bound of unit-norm rows: the run's feature_bound, below.)

// options.<key> as a number in the open interval (lo, hi), if present.
std::optional<double> number_option(const TrainingConfig& c, const char* key, double lo, double hi,
                                    const std::string& hint) {
  const auto it = c.options.find(key);
  if (it == c.options.end()) return std::nullopt;
  const bool ok = it->is_number() && it->get<double>() > lo && it->get<double>() < hi;
  if (!ok) bad(std::string("options.") + key + " must be a number in (" + show(lo) + ", " + show(hi) + ")", hint);
  return it->get<double>();
}

// options f, f1, L, gamma (each absent or in its range).
struct AmpOptions {
  std::optional<double> f, f1, lipschitz, gamma;
};

AmpOptions amp_options(const TrainingConfig& c) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  return {number_option(c, "f", 0, 1, "f is the fraction of (epsilon, delta) spent on the output noise."),
          number_option(c, "f1", 0, 1, "f1 = eps3 / eps1 is the share of eps1 spent on the objective noise."),
          number_option(c, "L", 0, kInf, "L is the row clipping bound (the Lipschitz constant of the loss)."),
          number_option(c, "gamma", 0, kInf, "gamma is the gradient norm the optimizer must reach (default 1/n^2).")};
}

void require_budget(const TrainingConfig& c) {
  if (!c.epsilon)
    bad("algorithm \"amp\" needs epsilon", "Pass epsilon => ... and delta => ... (AMP is (epsilon, delta)-DP).");
  if (!c.delta || !(*c.delta > 0))
    bad("algorithm \"amp\" needs delta > 0",
        "AMP adds Gaussian noise and is (epsilon, delta)-DP only (Iyengar et al. 2019, Theorem 1); pass delta => "
        "a value well below 1/n, e.g. 1/n^2.");
}

}  // namespace

// --- the formulas ---------------------------------------------------------------

double minimum_regularization(int rank_bound, double smoothness, double eps1, double eps3) {
  if (!(eps1 - eps3 > 0))
    bad("AMP needs eps1 - eps3 > 0 (got eps1 = " + show(eps1) + ", eps3 = " + show(eps3) + ")",
        "Choose options.f1 < 1: eps3 = f1 * eps1.");
  return rank_bound * smoothness / (eps1 - eps3);
}

double objective_noise_sigma(double lipschitz, std::int64_t rows, double eps3, double delta1) {
  // Lemma IV.1: b(t; D) moves by at most 2L/n between neighbours; Lemma III.1's constant.
  const double sensitivity = 2.0 * lipschitz / static_cast<double>(rows);
  return privacy::gaussian_sigma(sensitivity, eps3, delta1, privacy::GaussianCalibration::Amp);
}

double output_noise_sigma(std::int64_t rows, double gamma, double regularization, double eps2, double delta2) {
  // Eq. (3): ||t_approx - t_min|| <= n gamma / Lambda on each data set, so the
  // released t_approx - t_min moves by at most 2 n gamma / Lambda (corrected).
  const double sensitivity = 2.0 * static_cast<double>(rows) * gamma / regularization;
  return privacy::gaussian_sigma(sensitivity, eps2, delta2, privacy::GaussianCalibration::Amp);
}

double hyperparameter_free_f1(double eps1, bool high_dimensional) {
  if (!(eps1 > 0) || !std::isfinite(eps1)) bad("eps1 must be a positive finite number");
  const double theorem_floor = 1.0 - 0.99 / eps1;  // keeps eps1 - eps3 <= 0.99 (Alg. 1 step 1)
  if (high_dimensional) return std::max(0.97, theorem_floor);
  return std::max(std::min(0.887 + 0.019 * std::pow(eps1, -0.373), 0.99), theorem_floor);
}

bool is_high_dimensional(int dim, std::int64_t rows) {
  return 10.0 * static_cast<double>(dim) >= static_cast<double>(rows);
}

double loss_smoothness(LossKind loss, double lipschitz, double huber_h) {
  // The regularizer-free constants of loss_constants (lambda = 0).
  return loss_constants(loss, lipschitz, 0.0, 0.0, huber_h).smoothness;
}

// --- the plan ----------------------------------------------------------------------

void check_arguments(const TrainingConfig& c) {
  validate_optimizer_arguments(c, "amp");
  require_budget(c);
  whitebox::check_options(c, "amp", {"f", "f1", "L", "gamma", "optimizer", "max_evaluations"});
  amp_options(c);
  optim::solver_settings(c.options, 1);  // optimizer and max_evaluations
}

void require_drawable_sigma(const char* which, double sigma, const char* knob) {
  try {
    privacy::require_drawable_gaussian(sigma);
  } catch (const Error& e) {
    fail(ErrorKind::InvalidParameter, std::string("AMP's ") + which + " noise is too large to draw",
         std::string("sigma = ") + show(sigma) + "; " + e.what() + ".",
         std::string("Use a smaller ") + knob + " or a larger epsilon.");
  }
}

AmpPlan make_plan(const TrainingConfig& c) {
  check_arguments(c);
  validate_data_facts(c);

  AmpPlan p;
  static_cast<GlmProblem&>(p) = glm_problem(c);
  p.epsilon = *c.epsilon;
  p.delta = *c.delta;
  p.model_epsilon = p.epsilon / p.models;
  p.model_delta = p.delta / p.models;
  const double n = static_cast<double>(c.rows);

  const auto [f, f1, lipschitz, gamma] = amp_options(c);
  p.hyperparameter_free = !f && !f1 && !lipschitz && !gamma && c.lambda == 0;
  p.f = f.value_or(kFreeF);
  // The rows' norm bound (1 by default; sqrt(2) with an intercept: training/intercept.h).
  p.lipschitz = lipschitz.value_or(c.feature_bound);
  p.gamma = gamma.value_or(1.0 / (n * n));
  p.lambda = c.lambda;

  // Step 1.
  p.eps2 = p.f * p.model_epsilon;
  p.delta2 = p.f * p.model_delta;
  p.eps1 = p.model_epsilon - p.eps2;
  p.delta1 = p.model_delta - p.delta2;
  p.high_dimensional = is_high_dimensional(c.dim, c.rows);
  p.f1_from_fit = !f1;
  p.f1 = f1 ? *f1 : hyperparameter_free_f1(p.eps1, p.high_dimensional);
  p.eps3 = p.f1 * p.eps1;

  // Steps 2, 3, 6.
  p.smoothness = loss_smoothness(p.loss, p.lipschitz, p.huber_h);
  p.rank_bound = 2;
  p.minimum_regularization = minimum_regularization(p.rank_bound, p.smoothness, p.eps1, p.eps3);
  p.regularization = p.minimum_regularization + n * p.lambda;
  p.sigma1 = objective_noise_sigma(p.lipschitz, p.rows, p.eps3, p.delta1);
  p.sigma2 = output_noise_sigma(p.rows, p.gamma, p.regularization, p.eps2, p.delta2);
  // The objective's gradient carries b1 (norm ~ sigma1 sqrt(d)): when ten
  // rounding units of it exceed gamma no computed gradient certifies the
  // bound (a tiny epsilon, 1e-12 on 200 rows, made the line search fail as
  // an internal error; 1e-11 still converged). Public inputs only: refused here.
  if (!(10 * std::numeric_limits<double>::epsilon() * p.sigma1 * std::sqrt(static_cast<double>(p.dim)) <= p.gamma))
    bad("AMP's objective noise drowns its gradient bound gamma in double precision",
        "sigma1 = " + show(p.sigma1) + " (it grows as epsilon shrinks) in " + std::to_string(p.dim) +
            " dimensions, gamma = " + show(p.gamma) + ": pass a larger epsilon or a larger options.gamma.");
  // A finite sigma can still be too large for a sampler to draw (a draw could round to inf:
  // samplers.h): refused here, before the ledger charge, not when the run draws b1 (start) or
  // the output noise (release). A huge options.gamma or L does it.
  require_drawable_sigma("objective", p.sigma1, "options.L");
  require_drawable_sigma("output", p.sigma2, "options.gamma (the output noise grows with it)");
  p.theorem_covers_loss = p.loss == LossKind::Logistic;
  p.solver = optim::solver_settings(c.options, c.dim);

  TrainingPlan warned;
  whitebox::warn_if_delta_large(c, p.delta, warned);
  p.warnings = warned.warnings;
  if (!p.theorem_covers_loss)
    p.warnings.push_back("huber_svm: its Hessian is discontinuous, which Theorem 1 of AMP (Iyengar et al. 2019) "
                         "assumes away; the privacy claim of this model is not covered by the theorem");
  // Below ~100 ulps of the gradient's scale a computed gradient norm no longer
  // certifies anything, and the run would fail (release nothing).
  if (p.gamma < 100 * std::numeric_limits<double>::epsilon() * p.lipschitz)
    p.warnings.push_back("gamma = " + show(p.gamma) + " is near double-precision rounding of the gradient; the "
                         "optimizer may not certify it (then nothing is released): pass a larger options.gamma");
  return p;
}

nlohmann::json AmpPlan::privacy_json() const {
  return {
      {"private", true},
      {"notion", "(epsilon, delta)-DP"},
      {"epsilon", epsilon},
      {"delta", delta},
      {"adjacency", "replace-one: neighbouring tables differ in one row (features and label)"},
      {"n_public", true},
      {"mechanism", "approximate minima perturbation (Iyengar et al. S&P 2019, Algorithm 1)"},
      {"variant", hyperparameter_free ? "hyperparameter-free (Sec. V-A)" : "tuned"},
      {"models", models},
      {"per_model_epsilon", model_epsilon},
      {"per_model_delta", model_delta},
      {"composition", models == 1 ? "single model"
                                  : "basic composition over the one-vs-all models (each gets epsilon/K, delta/K)"},
      {"f", f},
      {"f1", f1},
      {"f1_rule", !f1_from_fit       ? "given"
                  : high_dimensional ? "Sec. V-A high-dimensional fit (p >= n/10)"
                                     : "Sec. V-A low-dimensional fit (p < n/10)"},
      {"eps1", eps1},
      {"eps2", eps2},
      {"eps3", eps3},
      {"delta1", delta1},
      {"delta2", delta2},
      {"lipschitz", lipschitz},
      {"row_clipping", "each row scaled to ||x|| <= L"},
      {"smoothness", smoothness},
      {"rank_bound", rank_bound},
      {"gamma", gamma},
      {"lambda", lambda},
      {"minimum_regularization", minimum_regularization},
      {"regularization", regularization},
      {"objective_noise", {{"sensitivity", 2 * lipschitz / static_cast<double>(rows)},
                           {"sigma", sigma1},
                           {"calibration", "amp (Lemma III.1)"}}},
      {"output_noise", {{"sensitivity", 2 * static_cast<double>(rows) * gamma / regularization},
                        {"sigma", sigma2},
                        {"calibration", "amp (Lemma III.1)"},
                        {"note", "sensitivity 2 n gamma / Lambda (the paper's n gamma / Lambda is half the true "
                                 "sensitivity)"}}},
      {"theorem_covers_loss", theorem_covers_loss},
      {"solver", solver.to_json()},
  };
}

// --- the two mechanisms -------------------------------------------------------------

WeightMatrix draw_objective_noise(const AmpPlan& p, privacy::RandomSource& rng) {
  WeightMatrix b1 = WeightMatrix::Zero(p.models, p.dim);
  for (int k = 0; k < p.models; ++k)
    privacy::add_gaussian_noise(rng, b1.row(k).data(), static_cast<std::size_t>(p.dim), p.sigma1);
  return b1;
}

void add_output_noise(const AmpPlan& p, WeightMatrix& weights, privacy::RandomSource& rng) {
  if (weights.rows() != p.models || weights.cols() != p.dim)
    fail(ErrorKind::Internal, "AMP output noise: weights are not K x d");
  for (int k = 0; k < p.models; ++k)
    privacy::add_gaussian_noise(rng, weights.row(k).data(), static_cast<std::size_t>(p.dim), p.sigma2);
}

}  // namespace dptrain::amp
