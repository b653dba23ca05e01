#include "core/algorithms/minimization_run.h"

#include "core/error.h"
#include "core/engine/model_details.h"
#include "core/engine/table_changed.h"
#include "core/privacy/messages.h"

namespace dptrain {

using privacy::show;

MinimizationRun::MinimizationRun(MinimizationSetup setup, std::vector<optim::RegularizedObjective> objectives)
    : setup_(std::move(setup)),
      objectives_(std::move(objectives)),
      lockstep_(optim::make_minimizers(setup_.solver, setup_.problem.models, setup_.problem.dim, setup_.tolerance)) {
  if (static_cast<int>(objectives_.size()) != setup_.problem.models)
    fail(ErrorKind::Internal, "minimization run: one objective per model");
  if (!(setup_.feature_bound > 0)) fail(ErrorKind::Internal, "minimization run: rows must be clipped");
  // Builds (and validates) one request now: a bad plan fails before any data is read.
  const WeightMatrix start = lockstep_.points();
  gradient_state::make_state(request(lockstep_.needs_hessian()), start.data());
}

gradient_state::Request MinimizationRun::request(bool hessian) const {
  gradient_state::Request r;
  r.dim = setup_.problem.dim;
  r.models = setup_.problem.models;
  r.points = 1;
  r.loss = setup_.problem.loss;
  r.huber_h = setup_.problem.huber_h;
  r.feature_bound = setup_.feature_bound;
  r.want = gradient_state::kLossSums | gradient_state::kGradient | (hessian ? gradient_state::kHessian : 0);
  return r;
}

std::optional<Pass> MinimizationRun::next() {
  if (!sent_.empty()) fail(ErrorKind::Internal, "next() before the last pass was accepted");
  if (lockstep_.failed())
    // Nothing is released, nothing retried: a failure reveals only that the
    // budget of passes was not enough (docs/amp.md §5). Which one-vs-all
    // model failed, and why (budget or no progress), depends on the data and
    // is not said: a caller training on a budget only learns this one bit.
    fail(ErrorKind::ProgramLimit,
         setup_.what + ": the optimizer did not reach the gradient norm bound; nothing is released",
         "Every model must reach ||grad|| <= " + show(setup_.tolerance) + " within " +
             std::to_string(setup_.solver.max_evaluations) + " passes (options.max_evaluations).",
         setup_.failure_hint);
  if (lockstep_.converged()) return std::nullopt;
  const WeightMatrix points = lockstep_.points();  // K x d row-major = the state's model-major layout
  Pass p;
  p.kind = PassKind::GradientLoss;
  p.rows = setup_.problem.rows;
  p.input = gradient_state::make_state(request(lockstep_.needs_hessian()), points.data());
  sent_ = p.input;
  return p;
}

void MinimizationRun::accept(const double* s, std::size_t len) {
  if (sent_.empty()) fail(ErrorKind::Internal, "accept() without a pass");
  std::vector<double> sent;
  sent.swap(sent_);
  gradient_state::validate(s, len);
  if (len != sent.size() || !gradient_state::same_request(s, sent.data()))
    fail(ErrorKind::InvalidState, "the gradient pass returned a state of a different request");
  // Every pass must see the n rows the plan was made for (the driver holds
  // one snapshot for a table read in place; a distributed table is counted).
  if (gradient_state::rows(s) != setup_.problem.rows) refuse_changed_table("A gradient pass");
  const bool hessian = gradient_state::request_of(s).want & gradient_state::kHessian;
  const int K = setup_.problem.models, d = setup_.problem.dim;
  std::vector<optim::Evaluation> evaluations(static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k) {
    if (!lockstep_.pending(k)) continue;
    optim::DataSums sums;
    sums.rows = gradient_state::rows(s);
    sums.loss_sum = gradient_state::loss_sum(s, 0, k);
    const std::vector<double> g = gradient_state::gradient_sum(s, 0, k);
    sums.gradient_sum = Eigen::Map<const Eigen::VectorXd>(g.data(), d);
    if (hessian) {
      const std::vector<double> h = gradient_state::hessian_sum(s, k);
      sums.hessian_sum = Eigen::Map<const Eigen::MatrixXd>(h.data(), d, d);  // symmetric
    }
    const Eigen::VectorXd theta = Eigen::Map<const Eigen::VectorXd>(gradient_state::point(s, 0, k), d);
    evaluations[static_cast<std::size_t>(k)] = objectives_[static_cast<std::size_t>(k)].evaluate(theta, sums);
  }
  lockstep_.accept(evaluations);
  // How many passes a run takes depends on the data: shown only to callers
  // who may read the table (Progress::depends_on_data).
  int converged = 0;
  for (int k = 0; k < K; ++k) converged += lockstep_.problem(k).status() == optim::Status::Converged;
  report("optimizer pass " + std::to_string(lockstep_.passes()) + " of at most " +
             std::to_string(setup_.solver.max_evaluations) + ": " + std::to_string(converged) + " of " +
             std::to_string(K) + " models reached the gradient bound",
         true);
}

WeightMatrix MinimizationRun::solutions() const {
  if (!sent_.empty() || !lockstep_.converged())
    fail(ErrorKind::Internal, "release() before every model converged");
  return lockstep_.solutions();
}

Model MinimizationRun::solution_model(const TrainingConfig& config, const std::string& algorithm, double lambda,
                                      const nlohmann::json& privacy, double seconds) const {
  Model m;
  m.weights = solutions();
  m.name = config.name;
  m.algorithm = algorithm;
  m.loss = setup_.problem.loss;
  m.huber_h = setup_.problem.huber_h;
  m.feature_bound = setup_.feature_bound;
  m.classes = config.classes;
  nlohmann::json hyper = {{"loss", config.loss}, {"lambda", lambda}, {"feature_bound", setup_.feature_bound}};
  if (m.loss == LossKind::HuberSvm) hyper["huber_h"] = m.huber_h;
  if (!config.options.empty()) hyper["options"] = config.options;
  m.details = {
      {"hyperparameters", hyper},
      {"data", data_facts(config)},
      {"privacy", privacy},
      {"optimizer", optimizer_json()},
      {"seconds", seconds},
  };
  return m;
}

nlohmann::json MinimizationRun::optimizer_json() const {
  nlohmann::json j = setup_.solver.to_json();
  j["gradient_tolerance"] = setup_.tolerance;
  j["stopping"] = "||grad F|| + its rounding-error bound <= gradient_tolerance on an exact gradient pass";
  return j;
}

}  // namespace dptrain
