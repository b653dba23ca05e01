// Private hyperparameter tuning: Bolt-on Algorithm 3, the held-out tuning of
// Chaudhuri, Monteleoni & Sarwate (JMLR 2011) (Bolt-on Algorithm 3; docs/tuning.md).
//
//   1. Split the table uniformly at random (randomness independent of the
//      data) into l + 1 disjoint parts S_1 .. S_{l+1} of equal size (+-1 row).
//   2. Train candidate i (lambda_i, epochs_i, batch_i) privately on S_i alone,
//      with (epsilon, delta) and every sensitivity computed for m_i = |S_i|
//      (not for the whole table).
//   3. Count the misclassifications chi_i of each RELEASED candidate on S_{l+1}.
//   4. Output candidate i with probability proportional to
//      exp(-epsilon chi_i / 2) (exponential mechanism, score sensitivity 1).
//
// Privacy (replace-one): the replaced row lies in exactly one part. In S_i
// (i <= l) it changes only candidate i, an (epsilon, delta)-DP release, and
// everything else is post-processing with unchanged data; in S_{l+1} the
// candidates do not change and every chi_j moves by at most 1, so the
// selection is epsilon-DP. Total: (epsilon, delta)-DP (parallel composition),
// the same budget as ONE training run, spent once.
//
// The Tuner is a run (engine/run.h) like any training run, shared by
// dp_tune (inside the backend) and `dptrain tune` (over libpq): it asks for
// a Split of the prepared table into l + 1 parts, then for candidate i the
// passes of the candidate's own run on part i + 1, then an Evaluate pass of
// its released model on the held-out part l + 1; release() applies the
// exponential mechanism and returns the chosen model with the metadata.
// On a Citus-distributed table the parts are a keyed hash of the row key
// (KeyedSplit below), every pass reads its part where the rows are, and
// there is no Split pass (docs/tuning.md section 5).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/tuning/candidate_seed.h"
#include "core/model.h"
#include "core/training/config.h"
#include "core/engine/run.h"
#include "core/sgd/shuffle_key.h"

namespace dptrain::tuning {

// The candidate hyperparameters: every combination of the three lists.
struct Grid {
  std::vector<double> lambdas = {1e-4, 1e-3, 1e-2};
  std::vector<int> epochs = {1, 5, 10};
  std::vector<std::int64_t> batch_sizes = {50};
  // false: batch_sizes is the default rule (fit_default_batch), not the
  // caller's {50}, which is kept as given.
  bool batch_sizes_given = false;
  // false: the default list (dp_tune's lambdas/epochs => NULL), which a
  // `grid` replaces; a given list, even the default's value, excludes `grid`.
  bool lambdas_given = false, epochs_given = false;

  nlohmann::json to_json() const;
};

struct Candidate {
  double lambda = 0;
  int epochs = 1;
  std::int64_t batch_size = 1;

  nlohmann::json to_json() const;
};

constexpr int kMaxCandidates = 100;

// Throws Error(InvalidParameter) unless `config.algorithm` may be tuned by
// Algorithm 3 (called before anything is charged or read). Refused: "none"
// (not private) and the algorithms accounted under add/remove-one (the DP-SGD
// family, DP-AGD: Algorithm::adjacency()); Algorithm 3's argument above is
// replace-one with every candidate spending exactly (epsilon, delta).
// And a run without epsilon (before the algorithm's own check says the same).
void check_tunable(const TrainingConfig& config);

// OPDisc has no lambda, epochs or batch size (algorithms/opdisc_plan.cpp): a
// grid over one of them (method holdout's grid always is one) tunes nothing,
// and its default lambdas were refused as if the caller had given them.
// Throws Error(InvalidParameter) for opdisc when `names` holds one of them.
void refuse_step_grid_for_opdisc(const std::string& algorithm, const std::vector<std::string>& names);

// Whether dp_tune / dptrain tune without a method use Liu-Talwar random
// stopping (docs/tuning.md section 4): for the algorithms check_tunable
// refuses, holdout (Algorithm 3) for the others.
bool random_stopping_by_default(const std::string& algorithm);

// The grid's candidates, lambda-major (then epochs, then batch size).
// Throws Error(InvalidParameter) for empty lists, repeated values, values out
// of range, or more than kMaxCandidates combinations.
std::vector<Candidate> expand(const Grid& grid);

// Sizes of the parts when a table of `rows` rows in uniformly random order is
// dealt out by position (row r, 0-based, goes to part r mod parts): part p
// gets floor((rows - 1 - p) / parts) + 1 rows, so sizes differ by at most 1.
// Public: a function of n and l only.
std::vector<std::int64_t> part_sizes(std::int64_t rows, int parts);

// The default batch sizes ({50}, Grid{}) capped at a part's rows floor(rows / parts)
// (public: n and the grid's size); batch sizes given (batch_sizes_given) are left alone.
void fit_default_batch(std::int64_t rows, Grid* g);

// The split of a Citus hash-distributed table (docs/tuning.md section 5):
// the rows stay on their shards; row r lies in part
// sgd::tuning_part(key(r), key, l + 1), its key being the distribution column
// (a surrogate key). rows[p][s] = the rows of shard s in part p + 1, counted
// before the charge by one statement grouping by shard and part. A function
// of the set of keys and of kappa only, so the same on neighbouring tables
// (replace-one keeping the row's key): each candidate's m_i and n_{s,i} are
// fixed parameters of its mechanism, as n and the n_s are of dp_train's.
struct KeyedSplit {
  sgd::SplitKey key{};
  std::vector<std::vector<std::int64_t>> rows;  // [part][shard]
};

// A fresh kappa for a tuning run: RandomSource::secure(), or (tests) from
// the seed's own stream (sgd::tuning_split_key).
sgd::SplitKey draw_split_key(const TrainingConfig& config);

// The sizes m_p = sum_s rows[p][s] of a keyed split of a table with
// `shard_rows` rows per shard into `parts` parts. Throws Error(InvalidData)
// unless the counts have that shape and every shard's parts add up to its
// rows (a table modified between the counts).
std::vector<std::int64_t> part_sizes(const KeyedSplit& split, const std::vector<std::int64_t>& shard_rows, int parts);

// For a role that may not read the table: a keyed split's sizes in the
// model's metadata become the number of parts and the smallest part (as
// distributed::redact_shard_rows does for the shards; docs/tuning.md
// section 5). No-op for a split by position (its sizes depend on n only).
void redact_part_rows(Model& model);

// Seeds (tests only): candidate i's noise uses candidate_seed(seed, i), the selection
// uses `seed` on stream kSelectionStream (never the stream a run uses).
constexpr std::uint64_t kSelectionStream = 1;

class Tuner : public Run {
 public:
  // `config`: the user arguments shared by all candidates (algorithm, loss,
  // epsilon, delta, learning_rate, ...; its lambda, epochs and batch_size are
  // ignored) and the public facts of the WHOLE table (rows = n, dim, classes).
  // A distributed table (config.distributed()) needs its keyed split: the
  // candidates are then planned for their parts' m_i and n_{s,i}, and no
  // Split pass is asked for (every pass reads its part where the rows are).
  Tuner(TrainingConfig config, Grid grid, std::optional<KeyedSplit> split = std::nullopt);

  std::optional<Pass> next() override;
  void accept(const double* result, std::size_t len) override;
  // The exponential mechanism picks one candidate (RandomSource::secure(),
  // or the seed's selection stream); returns its model with the tuning
  // metadata and the total privacy as its (epsilon, delta). The error
  // counts themselves are NOT in the metadata (they are not private).
  Model release(double seconds) override;
  // Warnings of the candidates' plans, each once (public: from public inputs).
  // release_warnings(): those of the released candidate's own run, computed
  // from its released model only; never another candidate's (docs/tuning.md).
  const std::vector<std::string>& warnings() const override { return warnings_; }
  long progress_done() const override { return epochs_done_; }
  long progress_total() const override { return epochs_total_; }

  int candidates() const { return static_cast<int>(candidates_.size()); }
  int parts() const { return candidates() + 1; }
  // Parts are numbered 1..parts() as pass tables; the held-out part is the last.
  int held_out_part() const { return parts(); }
  const std::vector<std::int64_t>& part_rows() const { return part_rows_; }
  const std::optional<KeyedSplit>& keyed_split() const { return split_; }
  const Candidate& candidate(int i) const;
  // Candidate i's configuration: rows = part_rows()[i], its own seed.
  const TrainingConfig& candidate_config(int i) const;
  // Candidate i's run, as the tuner starts it (for inspecting its plan).
  std::unique_ptr<Run> start_candidate(int i) const;
  int chosen() const { return chosen_; }

 private:
  enum class Awaiting { Nothing, Split, Candidate, Evaluation };
  std::optional<Pass> next_of_candidate();
  void on_part(Pass& pass, int part) const;
  nlohmann::json split_metadata() const;
  // Candidate i's run on its part, checked (batch size within the part).
  TrainingConfig make_candidate_config(int i) const;
  // The released model's details["privacy"] and details["tuning"].
  nlohmann::json privacy_details(const nlohmann::json& candidate_privacy, double epsilon, double delta) const;
  nlohmann::json tuning_details() const;
  void accept_evaluation(const double* totals, std::size_t len);

  TrainingConfig config_;
  Grid grid_;
  std::optional<KeyedSplit> split_;
  std::vector<Candidate> candidates_;
  std::vector<TrainingConfig> configs_;
  std::vector<std::int64_t> part_rows_;
  std::vector<std::optional<Model>> models_;
  std::vector<std::vector<std::string>> release_warnings_of_;  // candidate i's run's release warnings
  std::vector<std::int64_t> errors_;
  std::int64_t held_out_rows_ = 0;
  std::vector<std::string> warnings_;
  bool split_done_ = false;
  int current_ = 0;                 // the candidate being trained or evaluated
  std::unique_ptr<Run> run_;        // its run, while it trains
  long epochs_done_ = 0, epochs_total_ = 0;
  Awaiting awaiting_ = Awaiting::Nothing;
  int chosen_ = -1;
};

}  // namespace dptrain::tuning
