#include "core/algorithms/opdisc.h"

#include <string>

#include "core/algorithms/opdisc_groups.h"
#include "core/algorithms/opdisc_mip.h"
#include "core/algorithms/whitebox.h"
#include "core/engine/model_details.h"
#include "core/error.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"

namespace dptrain {
namespace {

TrainingPlan training_plan(const TrainingConfig& c, const opdisc::Plan& o) {
  TrainingPlan p;
  p.epochs = 0;
  p.epsilon = o.epsilon;
  p.delta = o.delta;
  p.privacy = o.to_json();
  whitebox::warn_if_delta_large(c, o.delta, p);
  return p;
}

}  // namespace

TrainingPlan Opdisc::plan(const TrainingConfig& config) const {
  return training_plan(config, opdisc::make_plan(config));
}

std::unique_ptr<Run> Opdisc::start(const TrainingConfig& config) const {
  return std::make_unique<OpdiscRun>(config);
}

OpdiscRun::OpdiscRun(TrainingConfig config) : OpdiscRun(config, opdisc::make_plan(config)) {}

OpdiscRun::OpdiscRun(TrainingConfig config, opdisc::Plan plan)
    : config_(std::move(config)), opdisc_(std::move(plan)), plan_(training_plan(config_, opdisc_)) {
  // Algorithm 1, step 1: the noise is drawn before the data is read.
  privacy::RandomSource rng = config_.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*config_.seed))
                                           : privacy::RandomSource::secure();
  eta_.assign(static_cast<std::size_t>(opdisc_.dim) + 1, 0.0);
  privacy::fill_standard_normal(rng, eta_.data(), eta_.size());
  for (double& e : eta_) e *= opdisc_.sigma;
}

std::optional<Pass> OpdiscRun::next() {
  if (asked_ && !grouped_) fail(ErrorKind::Internal, "next() before the grouping pass was accepted");
  if (asked_) return std::nullopt;
  asked_ = true;
  Pass p;
  p.kind = PassKind::GroupedRows;
  p.rows = config_.rows;
  p.input = {static_cast<double>(opdisc::kMaxGroups)};
  return p;
}

void OpdiscRun::accept(const double* result, std::size_t len) {
  if (!asked_ || grouped_) fail(ErrorKind::Internal, "accept() without a pass");
  const opdisc::GroupedRows data =
      opdisc::parse_groups(result, len, opdisc_.dim, config_.rows, opdisc::kMaxGroups);
  grouped_ = true;
  // Counts of the noiseless data: shown only to callers who may read the table.
  report("grouped the rows into " + std::to_string(data.groups.size()) + " distinct feature vectors", true);
  if (data.binarized > 0)
    report(std::to_string(data.binarized) + " rows had feature values other than 0 and 1 (mapped to 1 if >= 0.5, "
               "else 0)",
           true);
  opdisc::MipOptions options;
  options.time_limit = opdisc_.time_limit;
  options.interrupted = interrupt_check();
  const opdisc::MipSolution s = opdisc::solve_exact(data, opdisc_.bound, opdisc_.norm_squared, eta_, options);
  k_ = s.k;
  solved_ = true;
  // (The solve time is in the model's "seconds"; a progress line stays reproducible.)
  report("solved the MIP to proven optimality (" + std::to_string(s.nodes) + " branch-and-bound nodes)", true);
}

Model OpdiscRun::release(double seconds) {
  if (released_) fail(ErrorKind::Internal, "release() called twice");
  if (!solved_) fail(ErrorKind::Internal, "release() before the MIP was solved");
  released_ = true;
  Model m;
  m.name = config_.name;
  m.algorithm = "opdisc";
  m.loss = LossKind::Logistic;  // only the evaluation's loss column; OPDisc minimizes the 0/1 loss
  m.feature_bound = config_.feature_bound;
  m.classes = config_.classes;
  m.weights = WeightMatrix(1, opdisc_.dim);
  for (int j = 0; j < opdisc_.dim; ++j) m.weights(0, j) = opdisc_.tau * k_[static_cast<std::size_t>(j)];
  m.epsilon = opdisc_.epsilon;
  m.delta = opdisc_.delta;
  m.seeded = config_.seed.has_value();
  m.details = {
      {"hyperparameters",
       {{"objective", "0/1 loss, prediction +1 iff w.x >= 0, features binarized at 1/2"},
        // Read by prediction and evaluation (Model::binarize_threshold): the
        // classifier released is the one on binarized rows.
        {"binarize_threshold", opdisc::kBinarizeThreshold},
        {"bound", opdisc_.bound},
        {"norm_squared", opdisc_.norm_squared},
        {"tau", opdisc_.tau},
        {"time_limit", opdisc_.time_limit},
        {"feature_bound", config_.feature_bound},
        {"huber_h", config_.huber_h}}},
      {"data", data_facts(config_)},
      {"privacy", plan_.privacy},
      {"randomness", randomness_note(m.seeded)},
      {"seconds", seconds},
  };
  add_seed_and_warnings(m, config_, plan_.warnings);
  return m;
}

}  // namespace dptrain
