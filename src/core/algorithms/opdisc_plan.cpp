#include "core/algorithms/opdisc_plan.h"

#include <cmath>
#include <string>

#include "core/algorithms/whitebox.h"
#include "core/error.h"
#include "core/privacy/parameter_checks.h"

namespace dptrain::opdisc {
namespace {

[[noreturn]] void bad(const std::string& message, const std::string& detail, const std::string& hint) {
  fail(ErrorKind::InvalidParameter, message, detail, hint);
}

// floor(sqrt(d)) in integers (no rounding surprises at perfect squares).
int isqrt(int d) {
  int b = static_cast<int>(std::sqrt(static_cast<double>(d)));
  while (b * b > d) --b;
  while ((b + 1) * (b + 1) <= d) ++b;
  return b;
}

int integer_option(const TrainingConfig& c, const char* key, int fallback, int lo, int hi) {
  const auto it = c.options.find(key);
  if (it == c.options.end()) return fallback;
  if (!it->is_number_integer() || it->get<long long>() < lo || it->get<long long>() > hi)
    bad(std::string("options.") + key + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
            "]",
        {}, "Leave it out for the paper's default.");
  return static_cast<int>(it->get<long long>());
}

double real_option(const TrainingConfig& c, const char* key, double fallback, double hi) {
  const auto it = c.options.find(key);
  if (it == c.options.end()) return fallback;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0 || it->get<double>() > hi)
    bad(std::string("options.") + key + " must be a positive number of at most " + std::to_string(hi), {},
        "Leave it out for the default.");
  return it->get<double>();
}

// The shared arguments that mean nothing for a grid search of the 0/1 loss
// are refused rather than silently ignored.
void refuse_inapplicable(const TrainingConfig& c) {
  const char* hint = "OPDisc minimizes the 0/1 loss exactly over a grid; it has no step sizes, epochs or projection.";
  if (c.lambda != 0) bad("lambda does not apply to opdisc", {}, hint);
  if (c.learning_rate) bad("learning_rate does not apply to opdisc", {}, hint);
  if (c.schedule) bad("schedule does not apply to opdisc", {}, hint);
  if (c.radius) bad("radius does not apply to opdisc", {}, "Use options.norm_squared to bound the grid.");
  if (c.averaging) bad("averaging does not apply to opdisc", {}, hint);
  if (c.reshuffle) bad("reshuffle does not apply to opdisc", {}, hint);
}

}  // namespace

double noise_sigma(double lipschitz, double radius, double tau, double epsilon, double delta) {
  if (!(epsilon > 0) || !(delta > 0 && delta < 1) || !(tau > 0) || !(radius > 0) || !(lipschitz > 0))
    fail(ErrorKind::Internal, "opdisc noise_sigma: parameters out of range");
  const double log_inv_delta = -std::log(delta);
  // Theorem 1's proof needs (sqrt(2 ln(1/delta)) + sqrt(2 ln(1/delta) + 2 epsilon)) / 2
  // <= 7/4 sqrt(ln(1/delta)), which holds for epsilon <= ln(1/delta) (docs/opdisc.md).
  if (epsilon > log_inv_delta)
    bad("epsilon must be at most ln(1/delta) for opdisc",
        "The noise constant of OPDisc's privacy proof (Neel et al. 2020, Theorem 1) holds for "
        "epsilon <= ln(1/delta) = " + std::to_string(log_inv_delta) + ".",
        "Use a smaller epsilon or a smaller delta.");
  return 7.0 * lipschitz * radius * radius * std::sqrt(log_inv_delta) / (tau * epsilon);
}

void check_arguments(const TrainingConfig& c) {
  validate_arguments(c);
  whitebox::check_options(c, "opdisc", {"bound", "norm_squared", "tau", "time_limit"});
  refuse_inapplicable(c);
  // docs/intercept.md: the engine's intercept scales every row to the feature
  // bound before appending b, which would change OPDisc's binarization.
  if (c.intercept)
    bad("opdisc takes no intercept",
        "It binarizes every feature (x_j >= 1/2); the engine's intercept scales rows to the feature bound first, "
        "which would change that binarization.",
        "Pass intercept => false (the default for opdisc; CLI: --no-intercept), and add a constant feature 1 "
        "to the rows for an offset.");
  if (!c.epsilon)
    bad("algorithm \"opdisc\" needs epsilon", "OPDisc is a private algorithm.", "Pass epsilon => ... and delta => ....");
  if (!c.delta || *c.delta <= 0)
    bad("algorithm \"opdisc\" needs delta > 0", "OPDisc is (epsilon, delta)-DP only (Gaussian objective noise).",
        "Pass delta => ... (the paper uses 1/n^2).");
  if (*c.epsilon > -std::log(*c.delta))
    bad("epsilon must be at most ln(1/delta) for opdisc",
        "The noise constant of OPDisc's privacy proof (Neel et al. 2020, Theorem 1) holds for "
        "epsilon <= ln(1/delta) = " + std::to_string(-std::log(*c.delta)) + ".",
        "Use a smaller epsilon or a smaller delta.");
  integer_option(c, "bound", 1, 1, kMaxBound);
  integer_option(c, "norm_squared", 1, 1, kMaxNormSquared);
  real_option(c, "tau", 1.0, 1e6);
  real_option(c, "time_limit", kDefaultTimeLimit, kMaxTimeLimit);
}

Plan make_plan(const TrainingConfig& c) {
  check_arguments(c);
  if (c.rows < 1) fail(ErrorKind::InvalidData, "the training table is empty", {}, "Train on a table with rows.");
  if (c.classes.size() != 2)
    fail(ErrorKind::InvalidParameter, "opdisc needs exactly two classes",
         "It minimizes the 0/1 loss of one linear threshold classifier (binary labels).",
         "Declare two classes, or use another algorithm for multiclass data.");
  if (c.dim < 1) fail(ErrorKind::InvalidData, "feature arrays are empty", {}, "Rows need at least one feature.");
  if (c.dim > kMaxFeatures)
    fail(ErrorKind::ProgramLimit,
         "opdisc accepts at most " + std::to_string(kMaxFeatures) + " features, the table has " +
             std::to_string(c.dim),
         "Its exact mixed-integer oracle is only tractable in low dimension.",
         "Select or bin fewer features (one-hot of a few attributes).");

  Plan p;
  p.dim = c.dim;
  p.bound = integer_option(c, "bound", std::max(1, isqrt(c.dim)), 1, kMaxBound);
  p.norm_squared = integer_option(c, "norm_squared", c.dim, 1, kMaxNormSquared);
  p.tau = real_option(c, "tau", 1.0, 1e6);
  p.time_limit = real_option(c, "time_limit", kDefaultTimeLimit, kMaxTimeLimit);
  p.epsilon = *c.epsilon;
  p.delta = *c.delta;
  p.lipschitz = 1.0 / p.tau;
  p.radius = p.tau * std::sqrt(static_cast<double>(p.norm_squared));
  p.sigma = noise_sigma(p.lipschitz, p.radius, p.tau, p.epsilon, p.delta);
  if (!(p.sigma <= kMaxSigma))
    bad("epsilon is too small for opdisc's exact oracle",
        "The objective noise sigma = " + privacy::short_number(p.sigma) + " exceeds 1e20, beyond what the MIP solver "
        "represents.",
        "Use a larger epsilon (a model this noisy carries no information about the rows anyway).");
  return p;
}

nlohmann::json Plan::to_json() const {
  return {{"private", true},
          {"mechanism", "opdisc: Gaussian linear perturbation of the normalized 0/1-loss objective, exact argmin "
                        "over the grid (Neel et al. 2020, Algorithm 1)"},
          {"notion", "(epsilon, delta)-DP"},
          {"adjacency", "replace-one"},
          {"grid", {{"bound", bound}, {"norm_squared", norm_squared}, {"tau", tau}}},
          {"lipschitz_G", lipschitz},
          {"radius_D", radius},
          {"noise", "gaussian, d + 1 coordinates"},
          {"sigma", sigma},
          {"sigma_formula", "7 G D^2 sqrt(ln(1/delta)) / (tau epsilon)"},
          {"oracle", "COIN-OR CBC, proven optimal with relative gap 0 (absolute 1e-7); nothing released otherwise"},
          {"time_limit_seconds", time_limit}};
}

}  // namespace dptrain::opdisc
