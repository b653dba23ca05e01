// algorithm => 'dpagd': DP-AGD, differentially private adaptive gradient
// descent of Lee & Kifer ("Concentrated differentially private gradient
// descent with adaptive per-iteration privacy budget", KDD 2018, Algorithm 2),
// with the corrections of docs/dpagd.md (docs/pitfalls.md §P14): the loop is a
// privacy filter that stops when the budget cannot pay for the next
// mechanism, and gradient averaging averages the unnormalized estimates.
//
// Accounting: rho-zCDP under add/remove-one adjacency. The budget is
//   rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2
// (the root of eps = rho + 2 sqrt(rho ln(1/delta)), Lee & Kifer eq. (5) /
// Bun & Steinke Prop. 1.3), so spending at most rho is (epsilon, delta)-DP;
// the model also records the tighter epsilon of the rho actually spent
// (Canonne, Kamath & Steinke 2020), labelled as such.
//   eps_0 = epsilon / (2 splits); rho_nmax = eps_0^2 / 2 (each noisy line
//   search, an eps_0-DP report-noisy-min: Lemma 3.7);
//   rho_ng = eps_0^2 / (4 ln(1.25/delta)) (the first gradient: the zCDP of the
//   Gaussian the paper's code calibrates classically at (eps_0, delta)).
//
// One iteration, with w the current model (K one-vs-all models are one vector
// of K d weights):
//   [filter: rho_left >= rho_ng]  one GradientLoss pass: g = sum_i clip(grad l(w; x_i), C_grad)
//       (each model's row gradient clipped to L2 norm C_grad: ||g(D) - g(D')|| <= C_grad sqrt(K))
//   S = g + N(0, sigma^2 I), sigma = C_grad sqrt(K) / sqrt(2 rho_ng)      (Lemma 3.6)
//   loop:
//     dir = S / ||S|| + lambda w;  alpha_j = j alpha_max / m, j = 0..m
//     [filter: rho_left >= rho_nmax]  one GradientLoss pass at the m + 1 points w - alpha_j dir:
//       Omega_j = sum_i sum_k min(l_k(w - alpha_j dir; x_i), C_obj)
//       (non-negative clipped losses: adding a row raises every score by at most K C_obj,
//        monotone, so exponential noise of scale K C_obj / eps_nmax is eps_nmax-DP)
//     j* = noisy argmin; if j* > 0: w -= alpha_{j*} dir, next iteration
//     else [filter: rho_left >= (gamma) rho_S]: a fresh measurement S2 of the SAME g
//       at rho_new - rho_S (no new pass), S = (rho_S S + (rho_new - rho_S) S2) / rho_new,
//       rho_S = rho_ng = rho_new = (1 + gamma) rho_S, and search again.
//   every tau accepted steps: alpha_max = min((1 + eta) max(last tau steps), alpha_max_0).
// A failed filter check ends the run; the current w is released (nothing
// computed after the failed check).
//
// options.selection = 'exponential' draws j* by the exponential mechanism on the
// same monotone scores, P[j] ∝ exp(-eps_0 Omega_j / (K C_obj)) (factor 1, not 2:
// monotone; McSherry & Talwar 2007), which is eps_0-bounded-range and therefore
// eps_0^2/8-zCDP (Cesar & Rogers, ALT 2021): rho_nmax = eps_0^2/8, four times less
// than the default's eps_0^2/2 at the same eps_0 (docs/dpagd.md "The exponential mechanism").
#pragma once

#include <cstdint>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/privacy/zcdp.h"

namespace dptrain {

// How a line search chooses its step (options.selection): report-noisy-min with
// exponential noise (the paper's NoisyMax, the default) or the exponential mechanism.
enum class DpagdSelection { NoisyMax = 0, Exponential = 1 };  // options.selection's order

struct DpagdSettings {
  double epsilon = 0;
  double delta = 0;
  int splits = 60;
  double gamma = 0.1;          // budget increase when no candidate descends
  int candidates = 20;         // m non-zero step sizes (plus 0)
  int tau = 10;                // alpha_max update period (accepted steps)
  double eta = 0.1;            // alpha_max growth
  double alpha_max = 2.0;      // initial and largest alpha_max
  double gradient_clip = 0;    // C_grad (default: feature bound / 2)
  double loss_clip = 0;        // C_obj (default: feature bound / 2)
  DpagdSelection selection = DpagdSelection::NoisyMax;
};

struct DpagdBudget {
  DpagdSelection selection = DpagdSelection::NoisyMax;
  double rho = 0;              // total zCDP budget
  double epsilon_step = 0;     // eps_0 = epsilon / (2 splits)
  double rho_nmax = 0;         // per noisy line search: eps_0^2/2 (noisy max) or eps_0^2/8 (exponential)
  double rho_ng = 0;           // first gradient measurement
  std::int64_t max_iterations = 0;  // rho / (rho_ng + rho_nmax): an upper bound for progress bars
};

DpagdBudget dpagd_budget(const DpagdSettings& settings);

// The Gaussian standard deviation of a gradient measurement at zCDP rho:
// sensitivity C_grad sqrt(K) (add/remove), sigma = Delta / sqrt(2 rho).
double dpagd_sigma(double gradient_clip, int models, double rho);
// The scale of the line search, K C_obj / eps_0 for both selections: noisy max adds
// exponential noise of this scale (eps_0 = sqrt(2 rho_nmax)); the exponential mechanism
// picks j with probability ∝ exp(-Omega_j / scale).
double dpagd_selection_scale(double loss_clip, int models, const DpagdBudget& budget);

// GradAvg (Lee & Kifer Algorithm 2), corrected (docs/pitfalls.md §P14): the
// inverse-variance average of two independent unbiased Gaussian estimates of
// the same unnormalized gradient sum, at zCDP rho_estimate and rho_fresh
// (variances proportional to 1/rho): (rho_e S + rho_f S2) / (rho_e + rho_f),
// whose variance is that of one measurement at rho_e + rho_f.
std::vector<double> dpagd_average(const std::vector<double>& estimate, double rho_estimate,
                                  const std::vector<double>& fresh, double rho_fresh);

class Dpagd : public Algorithm {
 public:
  std::string name() const override { return "dpagd"; }
  // No intercept unless asked for: the bias coordinate raises the row bound
  // to sqrt(2) R, which costs a full-gradient method more than it gains at
  // small epsilon (docs/intercept.md, measured).
  bool default_intercept() const override { return false; }
  bool reads_sums_only() const override { return true; }  // gradient/loss passes only
  // Lee & Kifer 2018, Def. 3.1: the zCDP account is under add/remove-one.
  privacy::Adjacency adjacency() const override { return privacy::Adjacency::AddRemoveOne; }
  TrainingPlan plan(const TrainingConfig& config) const override;
  std::unique_ptr<Run> start(const TrainingConfig& config) const override;
  void check_arguments(const TrainingConfig& config) const override;
  // Lee & Kifer 2018 (Sec. 6, and their code) regularize with lambda = 0.001;
  // without it DP-AGD's line search has nothing to stop the norm growing.
  double default_lambda() const override { return 1e-3; }

  // Settings from config (defaults, options), checked; throws Error(InvalidParameter).
  static DpagdSettings settings(const TrainingConfig& config);
  // The same without the facts of the data (n, d, classes): check_arguments.
  static DpagdSettings arguments(const TrainingConfig& config);

 protected:
  // Noise multiplier (tests: a deliberately broken variant returns < 1).
  virtual double noise_factor() const { return 1.0; }
};

}  // namespace dptrain
