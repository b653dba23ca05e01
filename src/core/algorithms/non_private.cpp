#include "core/algorithms/non_private.h"

#include "core/error.h"

namespace dptrain {

TrainingPlan NonPrivateSgd::plan(const TrainingConfig& c) const {
  validate_common(c);
  if (c.epsilon || c.delta)
    fail(ErrorKind::InvalidParameter, "algorithm \"none\" is not private: epsilon and delta must be NULL", {},
         "Choose a private algorithm (e.g. algorithm => 'bolton') or drop epsilon/delta.");
  TrainingPlan p;
  p.epochs = c.epochs;
  p.reshuffle = c.reshuffle;
  const LossKind loss = parse_loss(c.loss);
  p.epoch.dim = c.dim;
  p.epoch.models = c.models();
  p.epoch.loss = loss;
  p.epoch.huber_h = c.huber_h;
  p.epoch.lambda = c.lambda;
  p.epoch.feature_bound = c.feature_bound;
  p.epoch.batch_size = c.batch_size;
  p.epoch.averaging = c.averaging;
  p.epoch.radius = c.radius.value_or(0.0);
  p.constants = loss_constants(loss, c.feature_bound, c.lambda, p.epoch.radius, c.huber_h);

  const ScheduleKind kind = c.schedule ? parse_schedule(*c.schedule)
                            : (c.lambda > 0 && !c.learning_rate) ? ScheduleKind::StronglyConvex
                                                                 : ScheduleKind::Constant;
  p.epoch.schedule = plan_schedule(c, kind, p.constants, kDefaultLearningRate);
  p.privacy = {{"private", false}};
  return p;
}

}  // namespace dptrain
