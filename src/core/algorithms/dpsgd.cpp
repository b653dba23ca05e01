#include "core/algorithms/dpsgd.h"

#include <algorithm>
#include <cmath>

#include "core/algorithms/dpsgd_run.h"
#include "core/algorithms/whitebox.h"
#include "core/error.h"
#include "core/privacy/rdp.h"

namespace dptrain {
namespace {

// Expected rows per query when options.lots_per_query is absent: a pass of
// ~250,000 sampled rows takes about a second, keeping queries few (T = 10,000
// lots of 250 rows: 10 queries) and interrupts and progress frequent.
constexpr double kRowsPerQuery = 250000;

[[noreturn]] void bad(const std::string& message, const std::string& detail = {}, const std::string& hint = {}) {
  fail(ErrorKind::InvalidParameter, message, detail, hint);
}

double number_option(const TrainingConfig& c, const char* key, double fallback) {
  if (!c.options.contains(key)) return fallback;
  const nlohmann::json& v = c.options.at(key);
  if (!v.is_number())
    bad(std::string("options.") + key + " must be a number", "Got " + v.dump() + ".",
        std::string("Write a JSON number, e.g. '{\"") + key + "\": 1}'.");
  return v.get<double>();
}

std::optional<double> optional_number(const TrainingConfig& c, const char* key) {
  if (!c.options.contains(key)) return std::nullopt;
  return number_option(c, key, 0);
}

bool bool_option(const TrainingConfig& c, const char* key) {
  if (!c.options.contains(key)) return false;
  if (!c.options.at(key).is_boolean())
    bad(std::string("options.") + key + " must be true or false", "Got " + c.options.at(key).dump() + ".",
        std::string("Write a JSON boolean, e.g. '{\"") + key + "\": true}'.");
  return c.options.at(key).get<bool>();
}

std::int64_t whole_option(const TrainingConfig& c, const char* key, std::int64_t fallback, std::int64_t most) {
  const double v = number_option(c, key, static_cast<double>(fallback));
  if (!(v >= 1 && v <= static_cast<double>(most) && std::floor(v) == v))
    bad(std::string("options.") + key + " must be a whole number in [1, " + std::to_string(most) + "]", {},
        std::string("E.g. '{\"") + key + "\": 1000}'.");
  return static_cast<std::int64_t>(v);
}

// T: options.steps, else `epochs` expected passes over the data, ceil(n / L) lots each.
std::int64_t planned_steps(const TrainingConfig& c, bool pairs) {
  constexpr std::int64_t kMaxSteps = 100'000'000;
  std::int64_t steps = c.options.contains("steps")
                           ? whole_option(c, "steps", 1, kMaxSteps)
                           : static_cast<std::int64_t>(c.epochs) * ((c.rows + c.batch_size - 1) / c.batch_size);
  if (steps > kMaxSteps) bad("too many lots", "T = " + std::to_string(steps) + ".", "Use fewer epochs or options.steps.");
  if (pairs && steps % 2 == 1) {
    if (c.options.contains("steps")) bad("adadp needs an even number of lots (options.steps)", {}, "Its lots come in pairs.");
    ++steps;  // epochs-derived: one more lot completes the last pair
  }
  return steps;
}

dpsgd::StepDecay decay_of(const TrainingConfig& c) {
  if (!c.schedule) return dpsgd::StepDecay::Constant;
  switch (parse_schedule(*c.schedule)) {
    case ScheduleKind::Constant: return dpsgd::StepDecay::Constant;
    case ScheduleKind::InverseSqrt: return dpsgd::StepDecay::InverseSqrt;
    default:
      bad("schedule \"" + *c.schedule + "\" does not apply to " + c.algorithm, {},
          "Use schedule => 'constant' (default) or 'inverse_sqrt'.");
  }
}

}  // namespace

const std::vector<std::string>& dpsgd_family() {
  static const std::vector<std::string> names = {"dpsgd", "psgd", "dpmomentum", "dpadam", "dpadamwosm", "adadp"};
  return names;
}

namespace {

// The options each member reads: another member's option (dpadam's beta2 given
// to dpsgd, dpmomentum's momentum to dpadam, P-SGD's closed_form_noise to
// dpsgd, which shares its optimizer) is refused as a typo would be, not
// silently ignored.
std::vector<std::string> option_keys(const std::string& algorithm, dpsgd::OptimizerKind kind) {
  std::vector<std::string> keys = {"steps", "clip_norm", "conversion", "lots_per_query"};
  switch (kind) {
    case dpsgd::OptimizerKind::Sgd:
      // P-SGD's closed-form noise (Iyengar et al. 2019, Alg. 2; seeded runs only, NOT accounted)
      if (algorithm == "psgd") keys.push_back("closed_form_noise");
      break;
    case dpsgd::OptimizerKind::Momentum: keys.push_back("momentum"); break;
    case dpsgd::OptimizerKind::Adam: keys.insert(keys.end(), {"beta1", "beta2", "xi"}); break;
    case dpsgd::OptimizerKind::AdamWosm: keys.push_back("beta1"); break;
    case dpsgd::OptimizerKind::Adadp: keys.push_back("adadp_tolerance"); break;
  }
  return keys;
}

// Every argument of the request that needs no fact of the data (n, d, K, and so T):
// checked by check_arguments before the budget is charged, and again by the plan.
dpsgd::DpSgdRequest request_arguments(const TrainingConfig& c) {
  validate_arguments(c);
  const dpsgd::OptimizerKind kind = dpsgd::parse_optimizer(c.algorithm);
  whitebox::check_options(c, c.algorithm.c_str(), option_keys(c.algorithm, kind));
  if (!c.epsilon)
    bad("algorithm \"" + c.algorithm + "\" needs epsilon", {}, "Pass epsilon => ... and delta => ....");
  if (!c.delta || *c.delta <= 0)
    bad("algorithm \"" + c.algorithm + "\" needs delta > 0",
        "The RDP accountant of the Poisson-subsampled Gaussian gives (epsilon, delta)-DP with delta > 0.",
        "Pass delta => ... (typically below 1/n).");
  if (c.averaging) bad("averaging does not apply to " + c.algorithm, {}, "Drop averaging => true.");
  if (c.reshuffle)
    bad("reshuffle does not apply to " + c.algorithm, "Every lot is a fresh Poisson sample.", "Drop reshuffle => true.");
  if (c.algorithm == "psgd" && c.lambda > 0 && !c.radius)
    bad("psgd with lambda > 0 needs a radius",
        "The regularized P-SGD projects onto the ball ||w|| <= R after every step.", "Pass radius => R.");
  if (kind != dpsgd::OptimizerKind::Sgd && kind != dpsgd::OptimizerKind::Momentum && c.schedule)
    bad("schedule does not apply to " + c.algorithm, {}, "Leave schedule NULL.");

  dpsgd::DpSgdRequest r;
  r.algorithm = c.algorithm;
  r.loss = parse_loss(c.loss);
  r.huber_h = c.huber_h;
  r.expected_lot = static_cast<double>(c.batch_size);
  if (c.options.contains("steps")) {
    r.steps = whole_option(c, "steps", 1, 100'000'000);
    if (kind == dpsgd::OptimizerKind::Adadp && r.steps % 2 == 1)
      bad("adadp needs an even number of lots (options.steps)", {}, "Its lots come in pairs.");
  }
  r.clip_norm = number_option(c, "clip_norm", 1.0);
  r.epsilon = *c.epsilon;
  r.delta = *c.delta;
  r.learning_rate = c.learning_rate;
  if (!r.learning_rate && (kind == dpsgd::OptimizerKind::Sgd)) r.learning_rate = 0.5;
  if (!r.learning_rate && (kind == dpsgd::OptimizerKind::Momentum)) r.learning_rate = 0.05;
  r.decay = decay_of(c);
  if (kind == dpsgd::OptimizerKind::Momentum) r.momentum = number_option(c, "momentum", 0.9);
  r.beta1 = number_option(c, "beta1", 0.9);
  r.beta2 = number_option(c, "beta2", 0.999);
  r.xi = number_option(c, "xi", 1e-8);
  r.tolerance = optional_number(c, "adadp_tolerance");
  r.radius = c.radius.value_or(0);
  r.lambda = c.lambda;
  r.closed_form_noise = bool_option(c, "closed_form_noise");
  if (r.closed_form_noise && !c.seed)
    bad("options.closed_form_noise is for reproducing the paper only: it needs a seed",
        "The closed-form P-SGD noise (Iyengar et al. 2019, Alg. 2) is not an accountant's bound; such a model "
        "is marked \"not accounted\" and is never charged as private.",
        "Drop closed_form_noise for the sound, accounted P-SGD.");
  if (c.options.contains("conversion")) {
    if (!c.options.at("conversion").is_string()) bad("options.conversion must be a string", {},
                                                              "'improved' (default) or 'classic'.");
    r.rdp.conversion = privacy::parse_rdp_conversion(c.options.at("conversion").get<std::string>());
  }
  if (c.options.contains("lots_per_query")) whole_option(c, "lots_per_query", 1, 100'000'000);
  return r;
}

}  // namespace

dpsgd::DpSgdRequest dpsgd_request(const TrainingConfig& c) {
  validate_common(c);
  dpsgd::DpSgdRequest r = request_arguments(c);
  r.rows = c.rows;
  r.dim = c.dim;
  r.models = c.models();
  r.steps = planned_steps(c, dpsgd::parse_optimizer(c.algorithm) == dpsgd::OptimizerKind::Adadp);
  return r;
}

void DpSgdFamily::check_arguments(const TrainingConfig& config) const {
  TrainingConfig c = config;
  c.algorithm = name_;
  dpsgd::validate_arguments(request_arguments(c));
}

std::uint64_t lots_per_query(const TrainingConfig& c, const dpsgd::DpSgdPlan& plan) {
  const double lot = plan.lots.expected_lot;
  const auto fallback = static_cast<std::int64_t>(std::max(1.0, std::ceil(kRowsPerQuery / lot)));
  const std::int64_t m = whole_option(c, "lots_per_query", fallback, 100'000'000);
  return static_cast<std::uint64_t>(std::min<std::int64_t>(m, plan.steps));
}

TrainingPlan training_plan(const TrainingConfig& c, const dpsgd::DpSgdPlan& p) {
  TrainingPlan t;
  t.epochs = 0;
  t.epsilon = p.accounted ? p.epsilon : p.account.epsilon;
  t.delta = p.delta;
  t.privacy = p.metadata["privacy"];
  if (!p.accounted) t.warnings.push_back("closed-form P-SGD noise: NOT accounted; the RDP accountant gives epsilon = " +
                                         std::to_string(p.account.epsilon) + " for it");
  whitebox::warn_if_delta_large(c, p.delta, t);
  return t;
}

TrainingPlan DpSgdFamily::plan(const TrainingConfig& config) const {
  TrainingConfig c = config;
  c.algorithm = name_;
  return training_plan(c, dpsgd::plan_dpsgd(dpsgd_request(c)));
}

std::unique_ptr<Run> DpSgdFamily::start(const TrainingConfig& config) const {
  TrainingConfig c = config;
  c.algorithm = name_;
  return std::make_unique<DpSgdRun>(c);
}

}  // namespace dptrain
