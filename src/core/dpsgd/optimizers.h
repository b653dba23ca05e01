// The update rules of the DP-SGD family, applied to the noisy lot gradient g~ (already
// noised and divided by the expected lot size: lot_state.h). Each rule only post-processes
// g~, so none changes the privacy of the run; what each one costs is the number of lots it
// consumes (one per call, both ADADP halves included). All arrays have n = K*d entries.
//
//   dpsgd       theta -= alpha_t g~, alpha_t = alpha or alpha / sqrt(t)
//               (Abadi et al. 2016; Mohapatra et al. 2022 App. A.1)
//   dpmomentum  v = m v + g~; theta -= alpha v (Mohapatra et al. 2022 App. A.1; no default m)
//   dpadam      Adam (Kingma & Ba 2015) on g~: m = b1 m + (1-b1) g~, v = b2 v + (1-b2) g~^2,
//               theta -= alpha (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + xi)
//   dpadamwosm  Adam without the second moment (Mohapatra et al. 2022 Alg. 2 = App. J): m as in Adam,
//               theta -= alpha m / (1-b1^t), alpha the "effective step size"
//               1e-3 / (sigma C / L + 1e-8), L the expected lot size
//   adadp       Koskela & Honkela (AISTATS 2020), lots in pairs: the first lot's gradient at
//               theta gives a full step theta1 = theta - eta g~ and a half step theta1/2;
//               the second lot's gradient at theta1/2 gives theta2 = theta1/2 - eta/2 g~;
//               err = sqrt(sum_j (theta1_j - theta2_j)^2 / max(1, theta1_j^2)),
//               eta *= min(max(sqrt(tau / err), 0.9), 1.1), and theta = theta2 if
//               err <= tau, else back to theta0 (the pair's start).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dptrain::dpsgd {

enum class OptimizerKind { Sgd = 0, Momentum = 1, Adam = 2, AdamWosm = 3, Adadp = 4 };
enum class StepDecay { Constant = 0, InverseSqrt = 1 };

// "dpsgd" (also "psgd") | "dpmomentum" | "dpadam" | "dpadamwosm" | "adadp".
OptimizerKind parse_optimizer(const std::string& name);
std::string optimizer_name(OptimizerKind kind);
StepDecay parse_step_decay(const std::string& name);  // "constant" | "inverse_sqrt"
std::string step_decay_name(StepDecay decay);

// Mohapatra et al. 2022 Alg. 2, line 3: 1e-3 / (sigma C / L + 1e-8).
double adam_wosm_step_size(double noise_multiplier, double clip_norm, double expected_lot);

// t >= 1 is the lot number.
void sgd_step(double* theta, const double* g, std::size_t n, double alpha, StepDecay decay, std::uint64_t t);
void momentum_step(double* theta, double* v, const double* g, std::size_t n, double alpha, double momentum);
void adam_step(double* theta, double* m, double* v, const double* g, std::size_t n, std::uint64_t t, double alpha,
               double beta1, double beta2, double xi);
void adam_wosm_step(double* theta, double* m, const double* g, std::size_t n, std::uint64_t t, double alpha,
                    double beta1);

// ADADP. First lot of a pair: theta0 = theta, theta1 = theta - eta g, theta -= eta/2 g.
void adadp_first_half(double* theta, double* theta0, double* theta1, const double* g, std::size_t n, double eta);
struct AdadpOutcome {
  double error;     // err as above
  double next_eta;  // eta times the clamped factor (err = 0: factor 1.1)
  bool accepted;    // err <= tau
};
// Second lot: theta (= theta1/2) -= eta/2 g gives theta2; then accept or revert to theta0.
AdadpOutcome adadp_second_half(double* theta, const double* theta0, const double* theta1, const double* g,
                               std::size_t n, double eta, double tolerance);

}  // namespace dptrain::dpsgd
