#include "core/algorithms/non_private.h"

#include "core/algorithms/whitebox.h"
#include "core/error.h"

namespace dptrain {

// A budget for a run that spends none is the caller's mistake, known from the
// arguments alone: dp_train refused it only after reading every row (3 s on
// dense Reuters), as the plan was its first check.
void NonPrivateSgd::check_arguments(const TrainingConfig& c) const {
  if (c.epsilon || c.delta)
    fail(ErrorKind::InvalidParameter, "algorithm \"none\" is not private: epsilon and delta must be NULL", {},
         "Choose a private algorithm (e.g. algorithm => 'bolton') or drop epsilon/delta.");
  // Its one option, and the schedule that reads it (a string where a number
  // goes was refused after the scan too); the plan repeats both.
  whitebox::check_options(c, "none", {"schedule_c"});
  const ScheduleKind kind = c.schedule ? parse_schedule(*c.schedule) : ScheduleKind::Constant;
  if (kind == ScheduleKind::Decreasing || kind == ScheduleKind::Sqrt) (void) c.options.value("schedule_c", 0.5);
}

namespace {

ScheduleKind schedule_kind(const TrainingConfig& c) {
  return c.schedule ? parse_schedule(*c.schedule)
         : (c.lambda > 0 && !c.learning_rate) ? ScheduleKind::StronglyConvex
                                              : ScheduleKind::Constant;
}

}  // namespace

void NonPrivateSgd::check_run_arguments(const TrainingConfig& c) const {
  check_schedule(c, schedule_kind(c),
                 loss_constants(parse_loss(c.loss), c.feature_bound, c.lambda, c.radius.value_or(0.0), c.huber_h));
}

TrainingPlan NonPrivateSgd::plan(const TrainingConfig& c) const {
  validate_common(c);
  check_arguments(c);
  // Its one option: a key it does not know (e.g. bolton's tolerance) is a typo
  // or a misplaced option, refused as every other algorithm refuses one
  // (check_arguments).
  TrainingPlan p = base_plan(c);
  const LossKind loss = p.epoch.loss;
  p.epoch.radius = c.radius.value_or(0.0);
  p.constants = loss_constants(loss, c.feature_bound, c.lambda, p.epoch.radius, c.huber_h);

  const ScheduleKind kind = schedule_kind(c);
  p.epoch.schedule = plan_schedule(c, kind, p.constants, kDefaultLearningRate);
  p.privacy = {{"private", false}};
  return p;
}

}  // namespace dptrain
