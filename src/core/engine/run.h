// A training run as the engine drives it (DESIGN.md, "the engine, second
// shape"). An algorithm plans from public inputs and starts a Run, which
// owns its plan, its random source and whatever it accumulates; a driver
// (SPI inside the backend, libpq in the CLI, in memory for tests) only
// executes the passes the run asks for:
//
//   std::unique_ptr<Run> run = start_run(config);   // plan: may throw before any data is read
//   while (std::optional<Pass> p = run->next()) run->accept(execute(*p));
//   Model model = run->release(seconds);            // the released model and the privacy spent
//
// Noiseless intermediate values never leave a run except as the input of a
// pass (the aggregate needs the current model); they are never reported.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/pass.h"
#include "core/interrupt.h"
#include "core/model.h"
#include "core/training/config.h"

namespace dptrain {

class Algorithm;

// Something a run tells the user while it works ("epoch 2 of 5 done").
// A message whose content depends on the noiseless data (an optimizer's
// iteration count, an early stop) is marked so: drivers show it only to a
// caller who may read the table anyway.
struct Progress {
  std::string message;
  bool depends_on_data = false;
};

class Run {
 public:
  virtual ~Run() = default;

  // The pass to execute next, or nothing when the run is done.
  virtual std::optional<Pass> next() = 0;
  // The result of the pass next() returned last (validated here).
  virtual void accept(const double* result, std::size_t len) = 0;
  // After next() returned nothing: the released model with its metadata;
  // `seconds` is the wall time to record. Called once.
  virtual Model release(double seconds) = 0;

  // Warnings of the plan (WARNING in SQL, stderr in the CLI).
  virtual const std::vector<std::string>& warnings() const = 0;
  // Warnings known only at the end, after release(): computed from what the
  // model releases (post-processing), recorded in details->'warnings' with the
  // plan's, and shown as those are: every driver (dp_train, dp_tune, the CLI)
  // shows whatever is here after release(), so a run only calls
  // warn_on_release (DP-AGD's refinement spiral: dpagd_warning.h; P-FW's
  // ties: pfw_ties.h; a tuner's released candidate's: docs/tuning.md).
  virtual const std::vector<std::string>& release_warnings() const { return release_warnings_; }
  // Progress messages since the last call.
  std::vector<Progress> take_progress();
  // Progress for a bar: units done and planned (public counts; planned may
  // be an upper bound, e.g. an iteration limit).
  virtual long progress_done() const = 0;
  virtual long progress_total() const = 0;

  // The driver's interrupt flag (a cancel request, Ctrl-C): a run that does
  // long work inside accept() or release() (OPDisc's MIP solve) polls it and
  // stops, releasing nothing. The check must be cheap and must not throw or
  // jump (inside the server it only reads the pending-cancel flags).
  using InterruptCheck = dptrain::InterruptCheck;
  void set_interrupt_check(InterruptCheck check) { interrupt_check_ = std::move(check); }

 protected:
  void report(std::string message, bool depends_on_data = false);
  // Inside release(): `warning`, computed from what `model` releases only
  // (post-processing), goes into model.details["warnings"] and release_warnings().
  void warn_on_release(Model& model, std::string warning);
  const InterruptCheck& interrupt_check() const { return interrupt_check_; }

 private:
  std::vector<Progress> progress_;
  std::vector<std::string> release_warnings_;
  InterruptCheck interrupt_check_;
};

// Plans `config` with the algorithm it names and starts the run.
std::unique_ptr<Run> start_run(const TrainingConfig& config);
// The same with an explicit algorithm object (tests: deliberately broken
// variants for the privacy audit). SQL and the CLI only ever name algorithms.
std::unique_ptr<Run> start_run(const TrainingConfig& config, std::shared_ptr<const Algorithm> algorithm);

}  // namespace dptrain
