// The interface every training algorithm implements (DESIGN.md "algorithms/",
// "the engine, second shape"). An algorithm never sees data directly: it
// plans from public inputs (step sizes, noise scales, budget split) before
// anything is read, then starts a run object (engine/run.h) that asks the
// driver for passes over the data and finally releases the model.
//
// Most algorithms of the first engine are k permutation-SGD epochs of the
// Bismarck aggregate followed by a release step (output perturbation, or
// nothing when the noise was added inside the epochs): they derive from
// EpochAlgorithm and implement plan() and release() only; the engine's
// EpochRun (engine/epoch_run.h) does the rest.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/privacy/adjacency.h"
#include "core/privacy/random_source.h"
#include "core/training/config.h"

namespace dptrain {

class Run;

// Owned through std::shared_ptr (make_algorithm's result converts): a run
// keeps its algorithm alive.
class Algorithm : public std::enable_shared_from_this<Algorithm> {
 public:
  virtual ~Algorithm() = default;
  virtual std::string name() const = 0;
  // Everything privacy-relevant is decided here, from public inputs only.
  virtual TrainingPlan plan(const TrainingConfig& config) const = 0;
  // Plans `config` and returns the run; throws before any data is read if
  // the arguments or the public facts do not allow the run.
  virtual std::unique_ptr<Run> start(const TrainingConfig& config) const = 0;
  // Checks of the user arguments that need no fact of the data (not even n),
  // run by the drivers before the budget is charged, so that a call the plan
  // would refuse anyway (e.g. AMP without delta) costs nothing. The plan
  // repeats them. Default: nothing beyond validate_arguments.
  virtual void check_arguments(const TrainingConfig&) const {}
  // Checks of one run's own arguments that still need no fact of the data
  // (not n, d nor the classes) but depend on its lambda, radius, schedule or
  // step, which dp_tune's grid may set per candidate (so check_arguments
  // leaves them out): bolt-on's step against 2/beta (beta from the loss,
  // the row bound and lambda), BST14's radius, ... Called with the run's own
  // configuration as the plan sees it (intercept::planned_config) by
  // dp_train, after check_arguments and before it reads any row, so that
  // such a call is refused before the scan, not only before the charge.
  // The plan repeats them. Default: nothing.
  virtual void check_run_arguments(const TrainingConfig&) const {}
  // The L2 regularization lambda a run gets when the caller leaves it out
  // (training/defaults.h): a public choice, e.g. the algorithm's paper
  // default. Default: 0 (no regularization).
  virtual double default_lambda() const { return 0.0; }
  // Whether a run gets an intercept when the caller does not say
  // (training/intercept.h, docs/intercept.md): a public choice. Default: yes.
  virtual bool default_intercept() const { return true; }
  // Whether every pass of a run is an exact sum over the rows (GradientLoss,
  // Evaluate: engine/pass.h), so that its result does not depend on the
  // order of the rows. Such a run needs no random permutation: the driver
  // may read the source in place, under one snapshot, and in parallel
  // (docs/performance.md, "Reading in place"). Default: no (SGD epochs,
  // sampled batches and splits need the shuffled copy).
  virtual bool reads_sums_only() const { return false; }
  // Whether the released model does not depend on the order of the rows
  // at all: every pass is an exact sum or count over the rows. Such a run
  // needs no random permutation; when it cannot read the source in place,
  // dp_train copies the rows without shuffling them (docs/performance.md,
  // "Order-free copies"). Default: the runs of exact sums. An algorithm that
  // answers yes must show that no step of its privacy analysis or of its
  // convergence argument uses a random order of the rows.
  virtual bool order_free() const { return reads_sums_only(); }
  // The neighbouring relation the run's (epsilon, delta) is stated under
  // (privacy/adjacency.h). The ledger charges every run under replace-one
  // (algorithms/ledger_charge.h), and Bolt-on's held-out tuning covers
  // replace-one runs only. Default: replace-one (n public).
  virtual privacy::Adjacency adjacency() const { return privacy::Adjacency::ReplaceOne; }
  // Whether every pass kind its runs ask for has an aggregate that reads
  // dptrain.sparsevec rows (docs/sparse.md); sparse::check refuses the others
  // before the charge. Default: yes (every pass kind of engine/pass.h has one).
  virtual bool reads_sparse_rows() const { return true; }
  // Whether its privacy analysis holds when a Citus-distributed table is
  // trained in place, shard by shard (docs/distributed.md): every pass an
  // exact sum (pushed down unchanged), or per-shard permutation-SGD epochs
  // averaged by the combine function (an EpochAlgorithm whose noise is
  // added once, at release: distributed::plan_epochs checks that).
  // Noise per batch, sampled rows or grouped rows: no. Default: the runs of
  // exact sums.
  virtual bool trains_on_shards() const { return reads_sums_only(); }
};

class EpochAlgorithm : public Algorithm {
 public:
  std::unique_ptr<Run> start(const TrainingConfig& config) const override;
  // Called once with the final model(s), K x d; modifies them in place.
  virtual void release(const TrainingConfig& config, const TrainingPlan& plan, WeightMatrix& weights,
                       privacy::RandomSource& rng) const = 0;
  // Output perturbation only: re-calibrates the noise release() adds to a
  // smaller per-model L2-sensitivity bound `sensitivity` (named by `rule`)
  // of the model this run trains, keeping the mechanism, epsilon, delta and
  // their split; rewrites plan.privacy ("sensitivity", "sensitivity_rule",
  // "noise", ...), which release() reads and the model's metadata records.
  // The engine calls it before any data is read when the run it executes
  // has a proven bound below plan.privacy["sensitivity"]: per-shard PSGD on
  // a distributed table (docs/distributed.md section 9.2). The algorithm
  // owns its noise formula; the engine only supplies the bound.
  // Returns false (plan unchanged: the larger noise stays) if the
  // algorithm's noise is not calibrated that way. Default: false.
  virtual bool calibrate_output_noise(const TrainingConfig&, TrainingPlan&, double /*sensitivity*/,
                                      const std::string& /*rule*/) const {
    return false;
  }
};

// Throws Error(InvalidParameter) for unknown names and
// Error(NotImplemented) for algorithms that are planned but not built yet.
std::unique_ptr<Algorithm> make_algorithm(const std::string& name);

// Names accepted by make_algorithm, implemented or not, for messages.
std::vector<std::string> known_algorithms();

// The algorithms that release without privacy (none, optimum): nothing to tune privately.
bool non_private_algorithm(const std::string& name);

// The implemented algorithms for which `holds` is true (e.g.
// &Algorithm::trains_on_shards), in the order of known_algorithms(): for
// hints and help texts.
std::vector<std::string> algorithms_that(const std::function<bool(const Algorithm&)>& holds);

}  // namespace dptrain
