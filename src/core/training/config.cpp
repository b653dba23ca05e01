#include "core/training/config.h"

#include <cmath>

#include "core/error.h"

namespace dptrain {
namespace {

[[noreturn]] void bad(const std::string& msg, const std::string& hint = {}) {
  fail(ErrorKind::InvalidParameter, msg, {}, hint);
}

}  // namespace

void validate_arguments(const TrainingConfig& c) {
  if (c.epochs < 1) bad("epochs must be at least 1", "Pass epochs => 1 or more.");
  if (c.epochs > 100000) bad("epochs must be at most 100000", "Pass epochs => 100000 or fewer.");
  if (c.batch_size < 1) bad("batch_size must be at least 1", "Pass batch_size => 1 or more.");
  // Subnormal values (below 2.2e-308) are refused too: noise scales divide
  // by them and overflow.
  if (c.epsilon) {
    if (!std::isnormal(*c.epsilon) || *c.epsilon < 0)
      bad("epsilon must be a positive finite number", "Privacy needs 0 < epsilon < infinity.");
  }
  if (c.delta) {
    if (!(*c.delta == 0 || std::isnormal(*c.delta)) || *c.delta < 0 || *c.delta >= 1)
      bad("delta must be in [0, 1)", "Use delta => 0 (or NULL) for pure epsilon-DP, typically delta < 1/n.");
  }
  if (!std::isfinite(c.lambda) || c.lambda < 0)
    bad("lambda must be a non-negative finite number", "Use lambda => 0 for no L2 regularization.");
  // A subnormal lambda (1e-320) made the default radius 1/lambda infinite.
  if (c.lambda != 0 && !std::isnormal(c.lambda))
    bad("lambda must be 0 or at least 2.2e-308", "Use lambda => 0 for no L2 regularization.");
  if (c.learning_rate && (!std::isfinite(*c.learning_rate) || *c.learning_rate <= 0))
    bad("learning_rate must be a positive finite number", "Leave learning_rate NULL for the algorithm's default.");
  if (!(c.huber_h > 0 && c.huber_h < 1)) bad("huber_h must be in (0, 1)", "The default is huber_h => 0.1.");
  if (c.radius && (!std::isfinite(*c.radius) || *c.radius <= 0))
    bad("radius must be a positive finite number", "Leave radius NULL for no projection (or the algorithm's default).");
  if (!std::isfinite(c.feature_bound) || c.feature_bound <= 0)
    bad("feature_bound must be a positive finite number", "Rows are clipped to this L2 norm; the default is 1.");
  parse_loss(c.loss);
  if (c.schedule) parse_schedule(*c.schedule);
  if (!c.options.is_object()) bad("options must be a JSON object", "For example options => '{}'.");
}

void validate_common(const TrainingConfig& c) {
  validate_arguments(c);
  if (c.rows < 1)
    fail(ErrorKind::InvalidData, "the training table is empty", {}, "Train on a table with at least one row.");
  if (c.dim < 1) fail(ErrorKind::InvalidData, "feature arrays are empty", {}, "Rows need at least one feature.");
  if (c.classes.size() < 2)
    fail(ErrorKind::InvalidData, "training needs at least two classes",
         c.classes.size() == 1 ? "Every row has the label \"" + c.classes[0] + "\"." : std::string(),
         "Check the label column, or declare the classes explicitly.");
  if (c.batch_size > c.rows)
    bad("batch_size (" + std::to_string(c.batch_size) + ") is larger than the number of rows (" +
            std::to_string(c.rows) + ")",
        "Use a smaller batch_size.");
}

bool stops_on_data(const TrainingConfig& c) { return c.options.is_object() && c.options.contains("tolerance"); }

TrainingPlan base_plan(const TrainingConfig& c) {
  TrainingPlan p;
  p.epochs = c.epochs;
  p.reshuffle = c.reshuffle;
  p.epoch.dim = c.dim;
  p.epoch.models = c.models();
  p.epoch.loss = parse_loss(c.loss);
  p.epoch.huber_h = c.huber_h;
  p.epoch.lambda = c.lambda;
  p.epoch.feature_bound = c.feature_bound;
  p.epoch.batch_size = c.batch_size;
  p.epoch.averaging = c.averaging;
  return p;
}

void check_schedule(const TrainingConfig& c, ScheduleKind kind, const LossConstants& k) {
  if (kind == ScheduleKind::StronglyConvex && !(k.strong_convexity > 0))
    bad("the strongly_convex schedule needs lambda > 0", "Pass lambda => a positive value, or another schedule.");
  if (kind == ScheduleKind::Decreasing || kind == ScheduleKind::Sqrt) {
    const double exponent = c.options.value("schedule_c", 0.5);
    if (!(exponent >= 0 && exponent < 1)) bad("options.schedule_c must be in [0, 1)", "The default is 0.5.");
  }
}

StepSchedule plan_schedule(const TrainingConfig& c, ScheduleKind kind, const LossConstants& k,
                           double default_eta) {
  check_schedule(c, kind, k);
  StepSchedule s;
  s.kind = kind;
  s.eta = c.learning_rate.value_or(default_eta);
  s.beta = k.smoothness;
  s.gamma = k.strong_convexity;
  if (kind == ScheduleKind::Decreasing || kind == ScheduleKind::Sqrt)
    s.offset = std::pow(static_cast<double>(c.rows), c.options.value("schedule_c", 0.5));
  return s;
}

nlohmann::json describe(const TrainingConfig& c, const TrainingPlan& p) {
  nlohmann::json h = {
      {"loss", c.loss},
      {"epochs", p.epochs},
      {"batch_size", c.batch_size},
      {"lambda", c.lambda},
      {"schedule", schedule_name(p.epoch.schedule.kind)},
      {"averaging", c.averaging},
      {"reshuffle", p.reshuffle},
      {"feature_bound", c.feature_bound},
      {"radius", p.epoch.radius > 0 ? nlohmann::json(p.epoch.radius) : nlohmann::json()},
  };
  switch (p.epoch.schedule.kind) {
    case ScheduleKind::Constant:
    case ScheduleKind::InverseSqrt: h["learning_rate"] = p.epoch.schedule.eta; break;
    case ScheduleKind::StronglyConvex:
      h["beta"] = p.epoch.schedule.beta;
      h["gamma"] = p.epoch.schedule.gamma;
      break;
    case ScheduleKind::Decreasing:
    case ScheduleKind::Sqrt:
      h["beta"] = p.epoch.schedule.beta;
      h["offset"] = p.epoch.schedule.offset;
      break;
  }
  if (parse_loss(c.loss) == LossKind::HuberSvm) h["huber_h"] = c.huber_h;
  if (!c.options.empty()) h["options"] = c.options;
  return h;
}

}  // namespace dptrain
