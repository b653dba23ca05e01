// What a training run is asked to do (user arguments) and the public facts
// of the data it runs on (n, d, classes), and the plan an algorithm derives
// from them before any feature value is read.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/loss/loss.h"
#include "core/sgd/epoch_state.h"

namespace dptrain {

struct TrainingConfig {
  // --- user arguments (dp_train / dptrain train) ---
  std::string algorithm = "bolton";
  std::string loss = "logistic";
  std::optional<double> epsilon;
  std::optional<double> delta;
  int epochs = 10;
  std::int64_t batch_size = 50;
  double lambda = 0.0;
  std::optional<double> learning_rate;
  std::optional<std::string> schedule;  // default: chosen by the algorithm
  double huber_h = kDefaultHuberH;
  bool averaging = false;
  bool reshuffle = false;                // a fresh random order every epoch
  std::optional<double> radius;          // projection radius; default: by algorithm
  std::optional<std::int64_t> seed;      // tests only: makes noise reproducible (not private)
  double feature_bound = 1.0;            // rows are clipped to this L2 norm
  // A bias term (training/intercept.h): rows become (clip(x), b). Off in the
  // core; dp_train, dp_tune and `dptrain train` switch it on by default.
  bool intercept = false;
  // Set by intercept::augmented_config: this is the augmented problem of a
  // run with a bias term, whose last weight is the bias (the released model
  // gets its intercept after release: pfw_ties.h reads this).
  bool augmented_for_intercept = false;
  nlohmann::json options = nlohmann::json::object();  // algorithm-specific extras
  std::string name;                      // model name (may be empty)

  // --- public facts of the data (n is public, as in the papers) ---
  std::string source;
  std::int64_t rows = 0;
  int dim = 0;
  std::vector<std::string> classes;      // binary: {negative, positive}
  bool classes_from_data = false;        // true if not declared by the caller
  // A Citus hash-distributed source (docs/distributed.md): the rows of every
  // shard, public by assumption (section 2: the distribution column is a
  // surrogate key, so a replaced row stays in its shard), and the name of
  // that column (the row key of the keyed shuffle). Empty: one plain table.
  std::vector<std::int64_t> shard_rows;
  std::string distribution_column;

  // The passes read the source in place under one snapshot, without a
  // shuffled copy (a plain table, a caller who may read it, a run of exact
  // sums only: Algorithm::reads_sums_only). Recorded in the model.
  bool read_in_place = false;
  // The rows were copied without a shuffle (Algorithm::order_free: the run
  // does not depend on their order). Recorded in the model.
  bool unordered_copy = false;

  bool distributed() const { return !shard_rows.empty(); }

  int models() const { return classes.size() == 2 ? 1 : static_cast<int>(classes.size()); }
  // Updates per epoch with nominal batch size b: ceil(n / b).
  std::int64_t updates_per_epoch() const { return (rows + batch_size - 1) / batch_size; }
};

struct TrainingPlan {
  epoch_state::EpochConfig epoch;        // loss, schedule, projection, batch, averaging
  int epochs = 0;
  bool reshuffle = false;
  LossConstants constants{};
  std::optional<double> epsilon;         // total privacy spent by the run
  std::optional<double> delta;
  nlohmann::json privacy = nlohmann::json::object();  // mechanism, sensitivity, noise, split
  std::vector<std::string> warnings;     // reported as WARNING / on stderr
  // > 0: stop early once an epoch lowers the training objective by less than
  // this fraction (Bolt-on §4.3's convergence tolerance; strongly convex
  // bolt-on only). The number of epochs then depends on the data, which the
  // paper's privacy argument covers only informally: see docs/bolton.md.
  double stop_tolerance = 0.0;
};

// Checks the user arguments every algorithm shares, before any data is
// looked at; throws Error(InvalidParameter).
void validate_arguments(const TrainingConfig& config);
// True if the run may stop after a data-dependent number of epochs
// (options.tolerance). Such runs have only an informal privacy argument.
bool stops_on_data(const TrainingConfig& config);

// validate_arguments plus the public facts of the data (n, d, classes).
void validate_common(const TrainingConfig& config);

// The part of a plan every algorithm shares, copied from the arguments and
// the public facts: epochs (fixed before any data is read, docs/pitfalls.md §P3),
// reshuffle, and the epoch configuration (d, K, loss, lambda, feature bound,
// batch size, averaging). Radius, schedule and privacy are the algorithm's.
TrainingPlan base_plan(const TrainingConfig& config);

// What plan_schedule refuses, from the arguments alone (no fact of the
// data: Algorithm::check_run_arguments): the strongly convex schedule
// without strong convexity (lambda = 0), options.schedule_c outside [0, 1).
void check_schedule(const TrainingConfig& config, ScheduleKind kind, const LossConstants& constants);

// The step-size schedule of `kind` for this run: eta from learning_rate (or
// `default_eta`), beta/gamma from the loss constants, and for the decreasing
// and sqrt schedules the offset m^c with c = options.schedule_c (default 0.5).
StepSchedule plan_schedule(const TrainingConfig& config, ScheduleKind kind, const LossConstants& constants,
                           double default_eta);

// Hyperparameters as recorded in the model's metadata.
nlohmann::json describe(const TrainingConfig& config, const TrainingPlan& plan);

}  // namespace dptrain
