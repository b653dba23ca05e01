#include "core/algorithms/optimizer_arguments.h"

#include "core/error.h"

namespace dptrain {

void validate_optimizer_arguments(const TrainingConfig& c, const std::string& algorithm) {
  validate_arguments(c);
  const std::string hint = "Algorithm \"" + algorithm +
                           "\" minimizes its objective with Newton's method or L-BFGS; it has no step size, "
                           "schedule, projection, iterate averaging or shuffling.";
  const auto refuse = [&](const char* argument) {
    fail(ErrorKind::InvalidParameter, std::string(argument) + " is not used by algorithm \"" + algorithm + "\"", {},
         hint);
  };
  if (c.learning_rate) refuse("learning_rate");
  if (c.schedule) refuse("schedule");
  if (c.radius) refuse("radius");
  if (c.averaging) refuse("averaging");
  if (c.reshuffle) refuse("reshuffle");
}

GlmProblem glm_problem(const TrainingConfig& c) {
  GlmProblem g;
  g.loss = parse_loss(c.loss);
  g.huber_h = c.huber_h;
  g.rows = c.rows;
  g.dim = c.dim;
  g.models = c.models();
  return g;
}

void validate_data_facts(const TrainingConfig& c) {
  TrainingConfig checked = c;
  checked.batch_size = 1;
  validate_common(checked);
}

}  // namespace dptrain
