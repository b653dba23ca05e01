// The controller of one training run, shared by dp_train (inside the
// backend, over SPI) and `dptrain train` (outside, over libpq): it plans the
// run, hands out the initial aggregate state of every epoch, takes back
// what the epoch aggregate returned, and finally releases the model
// (output perturbation etc.). It never touches the data itself.
//
//   Trainer t(config);                       // validate + plan: may throw
//   for (int e = 1; e <= t.epochs(); ++e) {
//     auto in = t.epoch_input();             // float8[] for the aggregate
//     ... SELECT dptrain.sgd_epoch(x, y, in) FROM shuffled ...
//     t.epoch_output(out, out_len);
//   }
//   Model m = t.finish();
#pragma once

#include <memory>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/model.h"
#include "core/training/config.h"

namespace dptrain {

class Trainer {
 public:
  explicit Trainer(TrainingConfig config);
  // With an explicit algorithm object instead of make_algorithm(config.algorithm):
  // for tests only (e.g. the privacy audit's deliberately broken variants).
  // SQL and the CLI only ever name algorithms.
  Trainer(TrainingConfig config, std::unique_ptr<Algorithm> algorithm);

  const TrainingConfig& config() const { return config_; }
  const TrainingPlan& plan() const { return plan_; }
  int epochs() const { return plan_.epochs; }
  int epochs_done() const { return epochs_done_; }
  // Another epoch is due: fewer than planned ran and the convergence
  // tolerance (if any) has not stopped the run.
  bool needs_epoch() const { return epochs_done_ < plan_.epochs && !stopped_; }
  bool stopped_early() const { return stopped_; }

  // Initial aggregate state of the next epoch.
  std::vector<double> epoch_input() const;
  // Rows the next epoch's aggregate must see: n for a permutation epoch,
  // ceil(n / b) * b for sampled batches (BST14).
  std::int64_t rows_per_epoch() const;
  // The state the epoch aggregate returned (validated here).
  void epoch_output(const double* state, std::size_t len);

  // With a convergence tolerance the controller measures the training loss
  // after every epoch: the current (noiseless) model packed for the
  // evaluation aggregate (packed_model.h), and the mean loss it measured
  // over the training rows. Never shown to anyone: it only decides whether
  // to stop (trap T5).
  bool wants_training_loss() const { return plan_.stop_tolerance > 0 && !stopped_ && epochs_done_ > 0; }
  std::vector<double> current_packed_model() const;
  void training_loss(double mean_loss);

  // After the last epoch: applies the algorithm's release step and returns
  // the model with its metadata. `seconds` is the wall time to record.
  Model finish(double seconds);

 private:
  TrainingConfig config_;
  std::unique_ptr<Algorithm> algorithm_;
  TrainingPlan plan_;
  // plan_.epoch plus the run's secret key for white-box noise and batch
  // sampling (never recorded anywhere else).
  epoch_state::EpochConfig epoch_config_;
  std::vector<double> weights_;   // K*d, row-major
  std::vector<double> average_;   // running average (if averaging)
  std::uint64_t updates_ = 0;
  std::uint64_t averaged_ = 0;
  int epochs_done_ = 0;
  double previous_objective_ = -1.0;  // training objective after the previous epoch
  bool stopped_ = false;
};

}  // namespace dptrain
