#include "core/engine/run.h"

#include "core/algorithms/algorithm.h"
#include "core/error.h"
#include "core/training/intercept.h"

namespace dptrain {

std::vector<Progress> Run::take_progress() {
  std::vector<Progress> out;
  out.swap(progress_);
  return out;
}

void Run::report(std::string message, bool depends_on_data) {
  progress_.push_back({std::move(message), depends_on_data});
}

void Run::warn_on_release(Model& model, std::string warning) {
  model.details["warnings"].push_back(warning);
  release_warnings_.push_back(std::move(warning));
}

std::unique_ptr<Run> start_run(const TrainingConfig& config) {
  return start_run(config, std::shared_ptr<const Algorithm>(make_algorithm(config.algorithm)));
}

std::unique_ptr<Run> start_run(const TrainingConfig& config, std::shared_ptr<const Algorithm> algorithm) {
  if (!algorithm) fail(ErrorKind::Internal, "start_run without an algorithm");
  if (!config.intercept) return algorithm->start(config);
  algorithm->check_arguments(config);  // an algorithm may refuse the intercept (opdisc)
  return intercept::wrap_run(algorithm->start(intercept::augmented_config(config)), config);
}

}  // namespace dptrain
