// dp_tune(..., method => 'liu_talwar'): private hyperparameter selection for
// any private algorithm by random stopping (Liu & Talwar, "Private Selection
// from Private Candidates", STOC 2019, Theorem 3.4; the hard-stopping loop of
// Mohapatra et al. 2022, App. E, Algorithm 1). docs/tuning.md §"Liu-Talwar".
//
// One candidate Q(D): a uniformly random point of the public grid, trained on
// the WHOLE table with (eps1 - eps_s, delta1), then its correct predictions on
// the whole table counted with Laplace(1 / eps_s) noise (noisy_count_score).
// By basic composition (Dwork & Roth 2014, Thm 3.16) Q's output (model, score)
// is (eps1, delta1)-DP under the candidate algorithm's own adjacency (a count
// moves by at most 1 when a row is added, removed or replaced).
// After every candidate the search stops with probability gamma, and after T =
// ceil((1/gamma) ln(1/delta2)) candidates in any case; the best-scored
// (model, score) is released. Theorem 3.4: the search is
//   (3 eps1 + 3 sqrt(2 delta1), sqrt(2 delta1) T + delta2)-DP.
//
// The user gives the TOTAL (epsilon, delta); the public rule
// (selection::liu_talwar_budget, docs/tuning.md):
//   gamma  = the caller's, default 1 / (number of grid points)
//   delta2 = delta / 2,  T = ceil((1/gamma) ln(1/delta2))
//   sqrt(2 delta1) = (delta - delta2) / T,  eps1 = (epsilon - 3 sqrt(2 delta1)) / 3
//   eps_s = eps1 / 10 for the score, eps1 - eps_s for the training run.
//
// On a Citus hash-distributed table (config.distributed()) every candidate is
// dp_train in place on the whole table (per-shard PSGD or exact sums,
// refused per grid point as dp_train refuses: engine/distributed.h) and its
// count is an exact sum over the shards; the same total holds under
// dp_train's adjacency there, replace-one keeping the row's key.
//
// Released: the chosen model, its grid point and its noisy score (all part of
// the winning Q's output). NOT released: how many candidates ran, which other
// points were tried and their scores (revealing the count turns the mixture
// over stopping times that Theorem 3.4 relies on into a fixed k-fold
// composition). The wall time and the session's progress messages reveal the
// count to whoever runs the search; the stored model does not record either.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/run.h"
#include "core/selection/liu_talwar.h"
#include "core/tuning/parameter_grid.h"

namespace dptrain::tuning {

// The share of a candidate's epsilon spent on its score (public rule).
constexpr double kScoreEpsilonShare = 0.1;

struct LiuTalwarSplit {
  selection::LiuTalwarBudget search;  // gamma, delta2, T, eps1, delta1, the Theorem 3.4 total
  double training_epsilon;            // eps1 - eps_s
  double score_epsilon;               // eps_s
};

// The public rule above; Error(InvalidParameter) for gamma outside (0, 1],
// delta outside (0, 1) or an epsilon that leaves nothing for the candidates.
LiuTalwarSplit liu_talwar_split(double epsilon, double delta, double gamma);

// At most this many candidates (T); a larger T needs a smaller gamma, i.e. a longer search.
constexpr std::int64_t kMaxLiuTalwarCandidates = 10000;

// Every check that needs no fact of the data (run before the budget is
// charged): the shared arguments, gamma, the split, and every grid point
// through the algorithm's check_arguments. Returns the split.
LiuTalwarSplit check_liu_talwar(const TrainingConfig& config, const ParameterGrid& grid, std::optional<double> gamma);

class LiuTalwarTuner : public Run {
 public:
  // `config`: the shared arguments with the TOTAL epsilon and delta and the
  // public facts of the table; every grid point is applied to it and planned
  // here, before any data is read (errors name the point). `gamma`: the
  // stopping probability, default 1 / grid.size().
  LiuTalwarTuner(TrainingConfig config, ParameterGrid grid, std::optional<double> gamma);

  std::optional<Pass> next() override;
  void accept(const double* result, std::size_t len) override;
  Model release(double seconds) override;
  // Warnings of the grid points' plans, each once (public: from public inputs).
  // release_warnings(): those of the released candidate's own run, computed
  // from its released model only; never another candidate's (docs/tuning.md).
  const std::vector<std::string>& warnings() const override { return warnings_; }
  long progress_done() const override { return runs_done_; }
  long progress_total() const override { return static_cast<long>(split_.search.max_candidates); }

  const LiuTalwarSplit& split() const { return split_; }
  // Point i's configuration as a candidate trains it (its budget, no seed).
  const TrainingConfig& candidate_config(std::size_t point) const { return configs_.at(point); }
  const ParameterGrid& grid() const { return grid_; }
  // Tests: the grid point of the released model (after release()).
  std::size_t chosen_point() const { return chosen_point_; }
  // Tests only (not released): how many candidates ran.
  std::int64_t candidates_run() const { return stopping_.candidates_run(); }
  // Tests only (not released): every run's grid point and noisy score, in order.
  const std::vector<std::pair<std::size_t, double>>& trace() const { return trace_; }

 private:
  enum class Awaiting { Nothing, Candidate, Score };
  std::optional<Pass> start_next_candidate();
  void accept_score(const double* totals, std::size_t len);

  TrainingConfig config_;
  ParameterGrid grid_;
  LiuTalwarSplit split_;
  std::vector<TrainingConfig> configs_;
  std::vector<std::string> warnings_;
  privacy::RandomSource rng_;  // grid points, stopping coins, score noise
  selection::RandomStopping stopping_;
  std::size_t point_ = 0;            // the running candidate's grid point
  std::unique_ptr<Run> run_;
  std::optional<Model> current_;     // its released model, while it is scored
  std::vector<std::string> current_release_warnings_;  // and its run's release warnings
  std::optional<Model> best_;
  std::vector<std::string> best_release_warnings_;
  std::size_t best_point_ = 0;
  double best_score_ = 0;
  std::size_t chosen_point_ = 0;
  std::vector<std::pair<std::size_t, double>> trace_;
  long runs_done_ = 0;
  Awaiting awaiting_ = Awaiting::Nothing;
  bool released_ = false;
};

}  // namespace dptrain::tuning
