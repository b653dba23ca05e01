#include "core/algorithms/dpsgd_run.h"

#include <algorithm>

#include "core/algorithms/dpsgd.h"
#include "core/dpsgd/lot_state.h"
#include "core/engine/model_details.h"
#include "core/error.h"

namespace dptrain {
namespace {

namespace ls = dpsgd::lot_state;

// Stream of a test seed that keys the lots and the noise (distinct from the
// streams other runs take from the same seed).
constexpr std::uint64_t kDpSgdKeyStream = 0x64707367'646c6f74;  // "dpsgdlot"

}  // namespace

privacy::RandomSource::Key dpsgd_run_key(const TrainingConfig& c) {
  privacy::RandomSource rng = c.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*c.seed), kDpSgdKeyStream)
                                     : privacy::RandomSource::secure();
  return privacy::draw_key(rng);
}

DpSgdRun::DpSgdRun(TrainingConfig config) : DpSgdRun(config, dpsgd::plan_dpsgd(dpsgd_request(config))) {}

DpSgdRun::DpSgdRun(TrainingConfig config, dpsgd::DpSgdPlan plan)
    : config_(std::move(config)),
      dp_(std::move(plan)),
      plan_(training_plan(config_, dp_)),
      per_query_(dptrain::lots_per_query(config_, dp_)),
      state_(ls::make_state(dp_.lots, dpsgd_run_key(config_), config_.seed.has_value())) {}

std::optional<Pass> DpSgdRun::next() {
  if (awaiting_ != 0) fail(ErrorKind::Internal, "next() before the last pass was accepted");
  const auto total = static_cast<std::uint64_t>(dp_.steps);
  if (done_ == total) return std::nullopt;
  const std::uint64_t last = std::min(total, done_ + per_query_);
  ls::set_last_lot(state_.data(), last);
  Pass p;
  p.kind = PassKind::PoissonLots;
  p.rows = config_.rows;
  p.input = state_;
  awaiting_ = last;
  return p;
}

void DpSgdRun::accept(const double* s, std::size_t len) {
  if (awaiting_ == 0) fail(ErrorKind::Internal, "accept() without a pass");
  const std::uint64_t last = awaiting_;
  awaiting_ = 0;
  ls::validate(s, len);
  // Same run: every planned field and the key (the header before the lot
  // counters) unchanged, and exactly the lots of the pass done.
  if (len != state_.size() || !std::equal(s, s + ls::kLot, state_.data()) || ls::rows(s) != config_.rows ||
      ls::sampling_rate(s) != ls::sampling_rate(state_.data()))
    fail(ErrorKind::InvalidState, "the lots pass returned a state of a different run");
  if (ls::lots_done(s) != last || ls::last_lot(s) != last)
    fail(ErrorKind::Internal, "the lots pass did not end every lot of the pass",
         "lots done " + std::to_string(ls::lots_done(s)) + ", expected " + std::to_string(last) + ".");
  state_.assign(s, s + len);
  done_ = last;
  ++queries_;
  report("lots " + std::to_string(done_) + " of " + std::to_string(dp_.steps) + " done");
}

Model DpSgdRun::release(double seconds) {
  if (released_) fail(ErrorKind::Internal, "release() called twice");
  if (done_ != static_cast<std::uint64_t>(dp_.steps)) fail(ErrorKind::Internal, "release() before every lot ran");
  released_ = true;
  const int K = dp_.lots.models.models, d = dp_.lots.models.dim;
  Model m;
  m.name = config_.name;
  m.algorithm = config_.algorithm;
  m.loss = dp_.lots.models.loss;
  m.huber_h = dp_.lots.models.huber_h;
  m.feature_bound = config_.feature_bound;
  m.classes = config_.classes;
  m.weights = Eigen::Map<const WeightMatrix>(ls::theta(state_.data()), K, d);
  m.epsilon = plan_.epsilon;
  m.delta = plan_.delta;
  m.seeded = config_.seed.has_value();
  nlohmann::json hyper = dp_.metadata["hyperparameters"];
  hyper["loss"] = config_.loss;
  hyper["feature_bound"] = config_.feature_bound;  // read back with the model (dp_evaluate's loss)
  if (m.loss == LossKind::HuberSvm) hyper["huber_h"] = config_.huber_h;
  hyper["lots_per_query"] = per_query_;
  if (!config_.options.empty()) hyper["options"] = config_.options;
  m.details = {
      {"hyperparameters", hyper},
      {"data", data_facts(config_)},
      {"privacy", plan_.privacy},
      {"randomness", randomness_note(m.seeded, "lots and noise")},
      {"queries", queries_},
      {"seconds", seconds},
  };
  if (dp_.lots.optimizer == dpsgd::OptimizerKind::Adadp)
    m.details["adadp"] = {{"final_eta", ls::adadp_eta(state_.data())},
                          {"accepted_pairs", ls::adadp_accepted(state_.data())},
                          {"rejected_pairs", ls::adadp_rejected(state_.data())}};
  add_seed_and_warnings(m, config_, plan_.warnings);
  return m;
}

}  // namespace dptrain
