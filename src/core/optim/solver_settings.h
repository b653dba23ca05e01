// Which optimizer a run uses and how long it may try, decided from public
// inputs (d and the options) before any data is read.
//   newton  damped Newton with the exact Hessian (d x d per evaluation;
//           the default while d <= newton_max_dim)
//   lbfgs   limited-memory BFGS (gradient only; the default above it)
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace dptrain::optim {

enum class Method { Newton, Lbfgs };

std::string method_name(Method m);

struct SolverSettings {
  static constexpr int kDefaultNewtonMaxDim = 300;
  static constexpr int kDefaultNewtonEvaluations = 100;
  static constexpr int kDefaultLbfgsEvaluations = 2000;
  static constexpr int kDefaultLbfgsMemory = 10;

  Method method = Method::Newton;
  int max_evaluations = kDefaultNewtonEvaluations;  // passes over the data, all included
  int lbfgs_memory = kDefaultLbfgsMemory;           // correction pairs kept by L-BFGS

  nlohmann::json to_json() const;
};

// options.optimizer ('auto' default | 'newton' | 'lbfgs') and
// options.max_evaluations (a positive integer); 'auto' picks Newton for
// dim <= newton_max_dim. Throws Error(InvalidParameter) on bad values.
SolverSettings solver_settings(const nlohmann::json& options, int dim,
                               int newton_max_dim = SolverSettings::kDefaultNewtonMaxDim);

}  // namespace dptrain::optim
