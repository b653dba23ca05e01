// The interface every training algorithm implements (DESIGN.md "algorithms/").
// An algorithm never sees data directly: it plans (step sizes, projection,
// noise scales) from public inputs before the first epoch, the engine runs
// the epochs, and `release` turns the final noiseless model into the
// released one (output perturbation, or nothing for white-box algorithms
// whose noise was added inside the aggregate).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/privacy/random_source.h"
#include "core/training/config.h"

namespace dptrain {

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual std::string name() const = 0;
  // Everything privacy-relevant is decided here, from public inputs only.
  virtual TrainingPlan plan(const TrainingConfig& config) const = 0;
  // Called once with the final model(s), K x d; modifies them in place.
  virtual void release(const TrainingConfig& config, const TrainingPlan& plan, WeightMatrix& weights,
                       privacy::RandomSource& rng) const = 0;
};

// Throws Error(InvalidParameter) for unknown names and
// Error(NotImplemented) for algorithms that are planned but not built yet.
std::unique_ptr<Algorithm> make_algorithm(const std::string& name);

// Names accepted by make_algorithm, implemented or not, for messages.
std::vector<std::string> known_algorithms();

}  // namespace dptrain
