#include "core/algorithms/whitebox.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace dptrain::whitebox {

double gradient_sum_sensitivity(const TrainingConfig& c) {
  // Lipschitz constant of the unregularized loss in w (lambda = 0): L_x.
  const LossConstants loss = loss_constants(parse_loss(c.loss), c.feature_bound, 0.0, 0.0, c.huber_h);
  return 2.0 * loss.lipschitz * std::sqrt(static_cast<double>(c.models()));
}

ScheduleKind schedule_kind(const TrainingConfig& c) {
  return c.schedule ? parse_schedule(*c.schedule)
         : c.lambda > 0 ? ScheduleKind::StronglyConvex
                        : ScheduleKind::InverseSqrt;
}

TrainingPlan base_plan(const TrainingConfig& c, double radius) {
  TrainingPlan p = dptrain::base_plan(c);
  p.epoch.radius = radius;
  p.constants = loss_constants(p.epoch.loss, c.feature_bound, c.lambda, radius, c.huber_h);
  return p;
}

void check_options(const TrainingConfig& c, const std::string& algorithm, const std::vector<std::string>& allowed) {
  for (auto it = c.options.begin(); it != c.options.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    fail(ErrorKind::InvalidParameter, "unknown option \"" + it.key() + "\" for algorithm " + algorithm, {},
         "Options of " + algorithm + ": " + list + ".");
  }
}

void check_options(const TrainingConfig& c, const std::string& algorithm,
                   std::initializer_list<const char*> allowed) {
  check_options(c, algorithm, std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string string_option(const TrainingConfig& c, const char* key, const std::string& fallback) {
  const auto it = c.options.find(key);
  if (it == c.options.end()) return fallback;
  if (!it->is_string())  // (it had no hint)
    fail(ErrorKind::InvalidParameter, std::string("options.") + key + " must be a string", {},
         std::string("Pass it as a JSON string, e.g. options => '{\"") + key + "\": \"" + fallback + "\"}'.");
  return it->get<std::string>();
}

std::size_t choice_option(const TrainingConfig& c, const std::string& algorithm, const char* key,
                          const std::vector<std::string>& choices, const std::string& hint) {
  const auto it = c.options.find(key);
  if (it == c.options.end()) return 0;
  std::string rule;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (it->is_string() && *it == choices[i]) return i;
    rule += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + ("\"" + choices[i] + "\"");
  }
  fail(ErrorKind::InvalidParameter, std::string("options.") + key + " of " + algorithm + " must be " + rule,
       "got " + it->dump(), hint);
}

privacy::GaussianCalibration calibration(const TrainingConfig& c) {
  return privacy::parse_gaussian_calibration(string_option(c, "gaussian_calibration", "analytic"));
}

void warn_if_delta_large(const TrainingConfig& c, double delta, TrainingPlan& plan) {
  if (delta > 0 && delta >= 1.0 / static_cast<double>(c.rows)) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "delta = %g is not below 1/n = %g", delta, 1.0 / static_cast<double>(c.rows));
    plan.warnings.push_back(std::string(buf) +
                            ": a mechanism that publishes one random row in the clear satisfies such a guarantee; "
                            "use delta << 1/n (e.g. 1/n^2)");
  }
}

double required_epsilon(const TrainingConfig& c, const std::string& algorithm) {
  if (!c.epsilon)
    fail(ErrorKind::InvalidParameter, "algorithm \"" + algorithm + "\" needs epsilon", {},
         "Pass epsilon => ... (the total privacy budget of the run).");
  return *c.epsilon;
}

}  // namespace dptrain::whitebox
