#include "amp_in_memory.h"

#include "core/error.h"
#include "core/optim/lockstep.h"

namespace dptrain::bench {
namespace {

InMemoryOutcome minimize(optim::Lockstep& lockstep, const optim::InMemoryGlm& data,
                         const std::vector<optim::RegularizedObjective>& objectives) {
  InMemoryOutcome out;
  out.passes = optim::run_in_memory(lockstep, data, objectives);
  out.released = lockstep.converged();
  if (out.released) out.weights = lockstep.solutions();
  else out.failure = lockstep.failure();
  return out;
}

}  // namespace

InMemoryOutcome run_amp(const amp::AmpPlan& plan, const optim::InMemoryGlm& data, privacy::RandomSource& rng) {
  if (data.rows() != plan.rows || data.dim() != plan.dim || data.models() != plan.models)
    fail(ErrorKind::Internal, "run_amp: the data does not match the plan");
  const WeightMatrix b1 = amp::draw_objective_noise(plan, rng);  // step 3, before the data
  std::vector<optim::RegularizedObjective> objectives;
  for (int k = 0; k < plan.models; ++k)
    objectives.emplace_back(plan.rows, plan.l2_coefficient(), b1.row(k).transpose(), plan.lipschitz);
  optim::Lockstep lockstep(optim::make_minimizers(plan.solver, plan.models, plan.dim, plan.gamma));
  InMemoryOutcome out = minimize(lockstep, data, objectives);
  if (out.released) amp::add_output_noise(plan, out.weights, rng);  // steps 6-7
  return out;
}

InMemoryOutcome run_optimum(const optimum::OptimumPlan& plan, const optim::InMemoryGlm& data) {
  std::vector<optim::RegularizedObjective> objectives(
      static_cast<std::size_t>(plan.models),
      optim::RegularizedObjective(plan.rows, plan.lambda, Eigen::VectorXd(), plan.feature_bound));
  optim::Lockstep lockstep(optim::make_minimizers(plan.solver, plan.models, plan.dim, plan.tolerance));
  return minimize(lockstep, data, objectives);
}

double accuracy(const WeightMatrix& w, const optim::RowMatrix& x, const std::vector<int>& classes) {
  const Eigen::MatrixXd scores = x * w.transpose();  // n x K
  std::size_t correct = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    int predicted;
    if (w.rows() == 1) {
      predicted = scores(i, 0) > 0 ? 1 : 0;
    } else {
      Eigen::Index best;
      scores.row(i).maxCoeff(&best);
      predicted = static_cast<int>(best);
    }
    correct += predicted == classes[static_cast<std::size_t>(i)];
  }
  return static_cast<double>(correct) / static_cast<double>(x.rows());
}

}  // namespace dptrain::bench
