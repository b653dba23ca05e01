// Private hyperparameter selection by random stopping (Liu & Talwar, "Private Selection
// from Private Candidates", STOC 2019; the hard-stopping variant of Mohapatra et al. 2022 App. E).
//
// Q(D) is one candidate: a uniformly random point of a public grid, trained with an
// (eps1, delta1)-DP algorithm whose output INCLUDES the candidate's score (e.g. a noisy
// validation count on rows the candidate's budget covers). Repeat Q independently; after
// each run stop with probability gamma; never run more than
//   T = ceil((1/gamma) ln(1/delta2))
// candidates; release the best-scored (model, score). Liu & Talwar, Theorem 3.4: the whole
// search is
//   (3 eps1 + 3 sqrt(2 delta1),  sqrt(2 delta1) T + delta2)-DP.
// Only the released candidate leaves the search; the others, their scores and how many
// ran stay inside (the count is part of the mechanism's randomness, not of its output).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/privacy/adjacency.h"
#include "core/privacy/random_source.h"

namespace dptrain::selection {

// ceil((1/gamma) ln(1/delta2)), gamma in (0, 1], delta2 in (0, 1).
std::int64_t liu_talwar_max_candidates(double gamma, double delta2);

// Theorem 3.4: the privacy of the whole search from one candidate's (eps1, delta1).
privacy::DpGuarantee liu_talwar_total(double candidate_epsilon, double candidate_delta, double gamma, double delta2);

struct LiuTalwarBudget {
  double gamma;
  double delta2;
  std::int64_t max_candidates;  // T
  double candidate_epsilon;     // eps1
  double candidate_delta;       // delta1
  privacy::DpGuarantee total;   // liu_talwar_total(eps1, delta1, gamma, delta2) <= the target
};

// The inverse: the per-candidate budget for a total (epsilon, delta). delta2 =
// delta2_share * delta; the rest goes to sqrt(2 delta1) T, i.e. delta1 = ((delta - delta2) /
// T)^2 / 2; eps1 = (epsilon - 3 sqrt(2 delta1)) / 3. Error(InvalidParameter) if nothing is
// left for eps1.
LiuTalwarBudget liu_talwar_budget(double epsilon, double delta, double gamma, double delta2_share = 0.5);

// The search as a state machine: next() names the grid point of the next candidate (or
// nothing once stopped), the caller runs it and reports its score with record(), which
// flips the gamma-coin. Randomness (grid point, coin) from the caller's RandomSource, secure
// in production.
class RandomStopping {
 public:
  RandomStopping(double gamma, std::int64_t max_candidates, std::size_t grid_size);

  std::optional<std::size_t> next(privacy::RandomSource& rng);
  void record(double score, privacy::RandomSource& rng);

  bool stopped() const { return stopped_; }
  std::int64_t candidates_run() const { return runs_; }
  // The best-scored run so far (0-based run number; ties: the earliest) and its score.
  std::int64_t best_run() const { return best_run_; }
  double best_score() const { return best_score_; }

 private:
  double gamma_;
  std::int64_t max_candidates_;
  std::size_t grid_size_;
  std::int64_t runs_ = 0;
  bool pending_ = false;
  bool stopped_ = false;
  std::int64_t best_run_ = -1;
  double best_score_ = 0;
};

// A candidate's score as part of its DP output: the number of correct predictions on a
// validation part, plus Laplace(1 / epsilon) noise. Under add/remove-one a row changes the
// count by at most 1, so this is epsilon-DP (Dwork et al. 2006); on rows disjoint from the
// training part it composes in parallel with the training run.
double noisy_count_score(std::int64_t correct, double epsilon, privacy::RandomSource& rng);

}  // namespace dptrain::selection
