#include "core/algorithms/amp.h"

#include "core/engine/model_details.h"
#include "core/error.h"

namespace dptrain {
namespace {

privacy::RandomSource noise_source(const TrainingConfig& c) {
  return c.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*c.seed)) : privacy::RandomSource::secure();
}

MinimizationSetup setup_of(const amp::AmpPlan& p) {
  MinimizationSetup s;
  s.problem = p;
  s.feature_bound = p.lipschitz;  // rows clipped to ||x|| <= L (Alg. 1's Lipschitz bound)
  s.tolerance = p.gamma;
  s.solver = p.solver;
  s.what = "AMP";
  s.failure_hint =
      "The privacy analysis allows no retry with other noise or a looser gamma. Pass a larger "
      "options.max_evaluations, or a larger options.gamma (the output noise grows with it), or a larger lambda.";
  return s;
}

// L_priv of model k (Alg. 1 step 4): mean loss + (Lambda/(2n))||t||^2 + <b1_k, t>.
std::vector<optim::RegularizedObjective> objectives_of(const amp::AmpPlan& p, const WeightMatrix& b1) {
  std::vector<optim::RegularizedObjective> v;
  for (int k = 0; k < p.models; ++k)
    v.emplace_back(p.rows, p.l2_coefficient(), b1.row(k).transpose(), p.lipschitz);
  return v;
}

}  // namespace

TrainingPlan Amp::plan(const TrainingConfig& config) const {
  const amp::AmpPlan p = make_amp_plan(config);
  TrainingPlan t;
  t.epsilon = p.epsilon;
  t.delta = p.delta;
  t.privacy = p.privacy_json();
  t.warnings = p.warnings;
  return t;
}

std::unique_ptr<Run> Amp::start(const TrainingConfig& config) const {
  return std::make_unique<AmpRun>(config, make_amp_plan(config));
}

AmpRun::AmpRun(TrainingConfig config, amp::AmpPlan plan)
    : AmpRun(config, plan, std::unique_ptr<privacy::RandomSource>(new privacy::RandomSource(noise_source(config)))) {}

// Step 3: b1 is drawn here, from the run's random source, before the run can
// ask for its first pass.
AmpRun::AmpRun(TrainingConfig config, amp::AmpPlan plan, std::unique_ptr<privacy::RandomSource> rng)
    : MinimizationRun(setup_of(plan), objectives_of(plan, amp::draw_objective_noise(plan, *rng))),
      config_(std::move(config)),
      plan_(std::move(plan)),
      rng_(std::move(rng)) {}

Model AmpRun::release(double seconds) {
  if (released_) fail(ErrorKind::Internal, "release() called twice");
  Model m = solution_model(config_, "amp", config_.lambda, plan_.privacy_json(), seconds);
  released_ = true;
  amp::add_output_noise(plan_, m.weights, *rng_);  // steps 6-7
  m.epsilon = plan_.epsilon;
  m.delta = plan_.delta;
  m.seeded = config_.seed.has_value();
  m.details["randomness"] = randomness_note(m.seeded);
  add_seed_and_warnings(m, config_, plan_.warnings);
  return m;
}

}  // namespace dptrain
