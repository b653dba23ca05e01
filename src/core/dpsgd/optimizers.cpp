#include "core/dpsgd/optimizers.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace dptrain::dpsgd {

OptimizerKind parse_optimizer(const std::string& name) {
  if (name == "dpsgd" || name == "psgd") return OptimizerKind::Sgd;
  if (name == "dpmomentum") return OptimizerKind::Momentum;
  if (name == "dpadam") return OptimizerKind::Adam;
  if (name == "dpadamwosm") return OptimizerKind::AdamWosm;
  if (name == "adadp") return OptimizerKind::Adadp;
  fail(ErrorKind::InvalidParameter, "unknown DP-SGD optimizer \"" + name + "\"", {},
       "Use dpsgd, psgd, dpmomentum, dpadam, dpadamwosm or adadp.");
}

std::string optimizer_name(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::Sgd: return "dpsgd";
    case OptimizerKind::Momentum: return "dpmomentum";
    case OptimizerKind::Adam: return "dpadam";
    case OptimizerKind::AdamWosm: return "dpadamwosm";
    case OptimizerKind::Adadp: return "adadp";
  }
  fail(ErrorKind::Internal, "invalid OptimizerKind");
}

StepDecay parse_step_decay(const std::string& name) {
  if (name == "constant") return StepDecay::Constant;
  if (name == "inverse_sqrt") return StepDecay::InverseSqrt;
  fail(ErrorKind::InvalidParameter, "unknown step decay \"" + name + "\"", {}, "Use constant or inverse_sqrt.");
}

std::string step_decay_name(StepDecay decay) { return decay == StepDecay::Constant ? "constant" : "inverse_sqrt"; }

double adam_wosm_step_size(double noise_multiplier, double clip_norm, double expected_lot) {
  return 1e-3 / (noise_multiplier * clip_norm / expected_lot + 1e-8);
}

void sgd_step(double* theta, const double* g, std::size_t n, double alpha, StepDecay decay, std::uint64_t t) {
  const double step = decay == StepDecay::Constant ? alpha : alpha / std::sqrt(static_cast<double>(t));
  for (std::size_t i = 0; i < n; ++i) theta[i] -= step * g[i];
}

void momentum_step(double* theta, double* v, const double* g, std::size_t n, double alpha, double momentum) {
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = momentum * v[i] + g[i];
    theta[i] -= alpha * v[i];
  }
}

void adam_step(double* theta, double* m, double* v, const double* g, std::size_t n, std::uint64_t t, double alpha,
               double beta1, double beta2, double xi) {
  const double td = static_cast<double>(t);
  const double c1 = 1 - std::pow(beta1, td), c2 = 1 - std::pow(beta2, td);
  for (std::size_t i = 0; i < n; ++i) {
    m[i] = beta1 * m[i] + (1 - beta1) * g[i];
    v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
    theta[i] -= alpha * (m[i] / c1) / (std::sqrt(v[i] / c2) + xi);
  }
}

void adam_wosm_step(double* theta, double* m, const double* g, std::size_t n, std::uint64_t t, double alpha,
                    double beta1) {
  const double c1 = 1 - std::pow(beta1, static_cast<double>(t));
  for (std::size_t i = 0; i < n; ++i) {
    m[i] = beta1 * m[i] + (1 - beta1) * g[i];
    theta[i] -= alpha * m[i] / c1;
  }
}

void adadp_first_half(double* theta, double* theta0, double* theta1, const double* g, std::size_t n, double eta) {
  for (std::size_t i = 0; i < n; ++i) {
    theta0[i] = theta[i];
    theta1[i] = theta[i] - eta * g[i];
    theta[i] -= 0.5 * eta * g[i];
  }
}

AdadpOutcome adadp_second_half(double* theta, const double* theta0, const double* theta1, const double* g,
                               std::size_t n, double eta, double tolerance) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    theta[i] -= 0.5 * eta * g[i];  // theta2
    const double diff = theta1[i] - theta[i];
    sum += diff * diff / std::max(1.0, theta1[i] * theta1[i]);
  }
  AdadpOutcome out;
  out.error = std::sqrt(sum);
  const double factor = out.error > 0 ? std::min(std::max(std::sqrt(tolerance / out.error), 0.9), 1.1) : 1.1;
  out.next_eta = eta * factor;
  out.accepted = out.error <= tolerance;
  if (!out.accepted) std::copy(theta0, theta0 + n, theta);
  return out;
}

}  // namespace dptrain::dpsgd
