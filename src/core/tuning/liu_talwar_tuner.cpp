#include "core/tuning/liu_talwar_tuner.h"

#include <algorithm>
#include <cmath>

#include "core/algorithms/algorithm.h"
#include "core/engine/distributed.h"
#include "core/engine/model_details.h"
#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/packed_model.h"
#include "core/privacy/messages.h"
#include "core/tuning/private_tuning.h"
#include "core/engine/table_changed.h"

namespace dptrain::tuning {
namespace {

using privacy::show;

privacy::RandomSource selection_source(const TrainingConfig& c) {
  return c.seed ? privacy::RandomSource::seeded(static_cast<std::uint64_t>(*c.seed), kSelectionStream)
                : privacy::RandomSource::secure();
}

// Rethrows a candidate's planning error with the grid point it came from.
[[noreturn]] void rethrow_for_point(const Error& e, const nlohmann::json& point) {
  throw Error(e.kind(), e.what(),
              "In the tuning grid point " + describe_point(point) + "." + (e.detail().empty() ? "" : " " + e.detail()),
              e.hint(), e.sqlstate());
}

}  // namespace

LiuTalwarSplit liu_talwar_split(double epsilon, double delta, double gamma) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "Liu-Talwar tuning needs delta in (0, 1)", "delta = " + show(delta),
         "Random stopping with at most T candidates is (epsilon, delta)-DP with delta > 0 (Liu & Talwar 2019, "
         "Thm 3.4): pass delta => ... (typically below 1/n).");
  LiuTalwarSplit s;
  s.search = selection::liu_talwar_budget(epsilon, delta, gamma, 0.5);
  s.score_epsilon = kScoreEpsilonShare * s.search.candidate_epsilon;
  s.training_epsilon = s.search.candidate_epsilon - s.score_epsilon;
  // Rounding: the Theorem 3.4 total of the split must not exceed the request.
  if (!(s.search.total.epsilon <= epsilon * (1 + 1e-12) && s.search.total.delta <= delta * (1 + 1e-12)))
    fail(ErrorKind::Internal, "the Liu-Talwar budget split exceeds the requested total");
  return s;
}

LiuTalwarSplit check_liu_talwar(const TrainingConfig& config, const ParameterGrid& grid, std::optional<double> gamma) {
  validate_arguments(config);
  if (non_private_algorithm(config.algorithm))
    fail(ErrorKind::InvalidParameter,
         "private tuning needs a private algorithm; \"" + config.algorithm + "\" is not private",
         {}, "Tune a private algorithm (e.g. algorithm => 'dpsgd').");
  if (!config.epsilon)
    fail(ErrorKind::InvalidParameter, "private tuning needs epsilon", {},
         "Pass epsilon => ... and delta => ... (the total of the whole search).");
  if (stops_on_data(config))
    fail(ErrorKind::InvalidParameter, "options.tolerance is not available in private tuning", {},
         "Each candidate's number of epochs is fixed in advance.");
  if (gamma && !(*gamma > 0 && *gamma <= 1))
    fail(ErrorKind::InvalidParameter, "gamma must be in (0, 1]", "gamma = " + show(*gamma),
         "gamma is the probability of stopping after each candidate; the default is 1 / (number of grid points).");
  const LiuTalwarSplit split =
      liu_talwar_split(*config.epsilon, config.delta.value_or(0.0),
                       gamma.value_or(1.0 / static_cast<double>(grid.size())));
  if (split.search.max_candidates > kMaxLiuTalwarCandidates)
    fail(ErrorKind::InvalidParameter,
         "Liu-Talwar tuning would run up to " + std::to_string(split.search.max_candidates) + " candidates",
         "T = ceil((1/gamma) ln(2/delta)) must be at most " + std::to_string(kMaxLiuTalwarCandidates) + ".",
         "Use a larger gamma (or a smaller grid: the default gamma is 1 / its size).");
  refuse_step_grid_for_opdisc(config.algorithm, grid.names());
  const std::shared_ptr<const Algorithm> algorithm = make_algorithm(config.algorithm);
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const nlohmann::json point = grid.point(i);
    try {
      TrainingConfig c = apply_point(config, point);
      c.epsilon = split.training_epsilon;
      c.delta = split.search.candidate_delta;
      algorithm->check_arguments(c);
    } catch (const Error& e) {
      rethrow_for_point(e, point);
    }
  }
  return split;
}

LiuTalwarTuner::LiuTalwarTuner(TrainingConfig config, ParameterGrid grid, std::optional<double> gamma)
    : config_(std::move(config)),
      grid_(std::move(grid)),
      rng_(selection_source(config_)),
      stopping_(1.0, 1, 1) {
  split_ = check_liu_talwar(config_, grid_, gamma);
  stopping_ = selection::RandomStopping(split_.search.gamma, split_.search.max_candidates, grid_.size());

  const std::shared_ptr<const Algorithm> algorithm = make_algorithm(config_.algorithm);
  for (std::size_t i = 0; i < grid_.size(); ++i) {
    const nlohmann::json point = grid_.point(i);
    TrainingConfig c;
    TrainingPlan p;
    try {
      c = apply_point(config_, point);
      c.epsilon = split_.training_epsilon;
      c.delta = split_.search.candidate_delta;
      c.name.clear();
      c.seed.reset();  // set per run (tests only)
      algorithm->check_arguments(c);
      p = algorithm->plan(c);
      // On a Citus table each candidate is dp_train in place on the whole
      // table (per-shard PSGD, exact sums): refused here, before the charge,
      // exactly when dp_train would refuse it (docs/tuning.md section 4).
      if (c.distributed()) distributed::check(c);
    } catch (const Error& e) {
      rethrow_for_point(e, point);
    }
    // Every candidate must stay within (eps1 - eps_s, delta1): an accountant may spend less.
    if (!p.epsilon || *p.epsilon > split_.training_epsilon * (1 + 1e-9) ||
        p.delta.value_or(0.0) > split_.search.candidate_delta * (1 + 1e-9))
      fail(ErrorKind::Internal, "a tuning candidate would spend more than its share of the budget",
           "Grid point " + describe_point(point) + ".");
    for (const std::string& w : p.warnings)
      if (std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) warnings_.push_back(w);
    configs_.push_back(std::move(c));
  }
}

std::optional<Pass> LiuTalwarTuner::start_next_candidate() {
  const std::optional<std::size_t> point = stopping_.next(rng_);
  if (!point) return std::nullopt;
  point_ = *point;
  TrainingConfig c = configs_[point_];
  if (config_.seed)
    c.seed = candidate_seed(*config_.seed, static_cast<std::uint64_t>(stopping_.candidates_run()));
  run_ = start_run(c);
  // The number of candidates stays hidden from roles without read access
  // (docs/tuning.md §4: Theorem 3.4 releases the best candidate, not the
  // stopping time), so every message that numbers a candidate is shown to
  // readers only (drive_run), as data-dependent progress is.
  report("candidate " + std::to_string(runs_done_ + 1) + " started", true);
  return next();
}

std::optional<Pass> LiuTalwarTuner::next() {
  if (awaiting_ != Awaiting::Nothing) fail(ErrorKind::Internal, "next() before the last pass was accepted");
  if (released_) fail(ErrorKind::Internal, "the tuning run was released");
  if (!run_ && !current_) return start_next_candidate();
  if (run_) {
    if (std::optional<Pass> p = run_->next()) {
      if (p->table != 0 || p->kind == PassKind::Split)
        fail(ErrorKind::Internal, "a tuning candidate asked for a pass outside the prepared table");
      awaiting_ = Awaiting::Candidate;
      return p;
    }
    current_ = run_->release(0.0);
    current_release_warnings_ = run_->release_warnings();
    run_.reset();
  }
  // The candidate's score: its correct predictions on the whole table (noised in accept).
  Pass evaluate;
  evaluate.kind = PassKind::Evaluate;
  evaluate.table = 0;
  evaluate.rows = config_.rows;
  evaluate.input = packed_model::pack(*current_);
  awaiting_ = Awaiting::Score;
  return evaluate;
}

void LiuTalwarTuner::accept(const double* result, std::size_t len) {
  const Awaiting what = awaiting_;
  awaiting_ = Awaiting::Nothing;
  if (what == Awaiting::Candidate) {
    run_->accept(result, len);
    for (Progress& m : run_->take_progress())
      report("candidate " + std::to_string(runs_done_ + 1) + ": " + m.message, true);
    return;
  }
  if (what == Awaiting::Score) return accept_score(result, len);
  fail(ErrorKind::Internal, "accept() without a pass");
}

void LiuTalwarTuner::accept_score(const double* totals, std::size_t len) {
  if (len < evaluation::kTotalsHeader) fail(ErrorKind::Internal, "malformed tuning evaluation");
  const auto rows = static_cast<std::int64_t>(totals[0]), correct = static_cast<std::int64_t>(totals[1]);
  if (rows != config_.rows) refuse_changed_table("A candidate's scoring pass");
  if (correct < 0 || correct > rows) fail(ErrorKind::Internal, "impossible number of correct predictions");
  // Laplace(1 / eps_s) on a count of sensitivity 1: eps_s-DP, part of this candidate's output.
  const double score = selection::noisy_count_score(correct, split_.score_epsilon, rng_);
  trace_.emplace_back(point_, score);
  const std::int64_t before = stopping_.best_run();
  stopping_.record(score, rng_);
  if (stopping_.best_run() != before) {  // this run is the new best (ties: the earlier stays)
    best_ = std::move(current_);
    best_release_warnings_ = std::move(current_release_warnings_);
    best_point_ = point_;
    best_score_ = score;
  }
  current_.reset();
  current_release_warnings_.clear();
  ++runs_done_;
}

Model LiuTalwarTuner::release(double /*seconds: reveals the number of candidates, not recorded*/) {
  if (released_ || !best_ || !stopping_.stopped() || run_ || current_)
    fail(ErrorKind::Internal, "LiuTalwarTuner::release before the search stopped");
  released_ = true;
  chosen_point_ = best_point_;
  Model m = std::move(*best_);
  const nlohmann::json candidate_privacy = m.details.at("privacy");
  const double epsilon = *config_.epsilon, delta = *config_.delta;
  const selection::LiuTalwarBudget& b = split_.search;
  m.name = config_.name;
  m.epsilon = epsilon;
  m.delta = delta;
  m.seeded = config_.seed.has_value();
  m.details["privacy"] = {
      {"private", true},
      {"notion", "(epsilon, delta)-DP"},
      {"epsilon", epsilon},
      {"delta", delta},
      {"adjacency", candidate_privacy.value("adjacency", "that of the candidate algorithm")},
      {"n_public", true},
      {"mechanism",
       "private hyperparameter selection by random stopping (Liu & Talwar 2019, Theorem 3.4; Mohapatra et al. "
       "2022 App. E, Algorithm 1): each candidate is a uniformly random grid point trained on the whole table "
       "and scored by its noisy count of correct predictions on it; after each candidate stop with probability "
       "gamma, after T candidates in any case; the best-scored candidate is released"},
      {"composition",
       "candidate: training (eps1 - eps_s, delta1) + Laplace count eps_s = (eps1, delta1) by basic composition; "
       "search: (3 eps1 + 3 sqrt(2 delta1), sqrt(2 delta1) T + delta2) by Theorem 3.4, at most the requested total"},
      {"bound", {{"epsilon", b.total.epsilon}, {"delta", b.total.delta}}},
      {"gamma", b.gamma},
      {"delta2", b.delta2},
      {"max_candidates", b.max_candidates},
      {"candidate_epsilon", b.candidate_epsilon},
      {"candidate_delta", b.candidate_delta},
      {"training_epsilon", split_.training_epsilon},
      {"score_epsilon", split_.score_epsilon},
      {"score", "correct predictions on the whole table + Laplace(1 / score_epsilon)"},
      {"released", "the chosen model, its grid point and its noisy score; not the number of candidates run, "
                   "the other points tried or their scores"},
      {"candidate", candidate_privacy},
  };
  nlohmann::json chosen = {{"index", chosen_point_}, {"point", grid_.point(chosen_point_)},
                           {"noisy_correct", best_score_},
                           {"noisy_accuracy", best_score_ / static_cast<double>(config_.rows)}};
  m.details["tuning"] = {
      {"method", "liu_talwar"},
      {"algorithm", "Liu-Talwar random stopping (hard stopping, Mohapatra et al. 2022 App. E)"},
      {"grid", grid_.to_json()},
      {"grid_points", grid_.size()},
      {"chosen", chosen},
  };
  if (config_.distributed()) {
    // Liu & Talwar's Theorem 3.4 holds under whatever relation every
    // candidate (and its count, which moves by at most 1) is DP under
    // (docs/tuning.md section 4). A candidate of per-shard PSGD epochs
    // (privacy.distributed) is DP under replace-one keeping the row's key
    // only: its step and bound are functions of the shard sizes (Bolt-on
    // Lemmas 1-4 per shard, docs/distributed.md section 2). One of exact
    // sums computes what it computes on one node and keeps its own relation
    // (DP-AGD's add/remove, which a replacement keeping the key is not).
    distributed::annotate(m, config_);
    if (candidate_privacy.contains("distributed"))
      m.details["privacy"]["adjacency"] = m.details["data"]["distribution"]["adjacency"];
  }
  m.details.erase("seconds");  // a candidate's own time; the search's reveals the count
  m.details.erase("seed");
  m.details.erase("warnings");
  add_seed_and_warnings(m, config_, warnings_);  // the plans' (public), not the candidate's copy of its own
  // The released candidate's release warnings read only its released model
  // and counts (details->'privacy'->'candidate'), part of the winning Q's
  // output that Theorem 3.4 releases: post-processing. Those of candidates
  // not released read outputs that are not released, and are dropped
  // (docs/tuning.md, "Warnings").
  for (const std::string& w : best_release_warnings_) warn_on_release(m, w);
  return m;
}

}  // namespace dptrain::tuning
