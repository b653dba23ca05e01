// algorithm => 'pfw': private Frank-Wolfe on an L1 ball (Talwar, Thakurta &
// Zhang, "Nearly optimal private LASSO", NeurIPS 2015; Iyengar et al., "Towards
// practical differentially private convex optimization", S&P 2019, Algorithm 5).
// docs/pfw.md has the derivation of every constant.
//
// Domain: the L1 ball of radius c (radius => c), the convex hull of its 2d
// corners {+c e_j, -c e_j}. Rows are clipped to the feature bound (L2, as for
// every dptrain model) and then every coordinate to [-L, L]
// (options.coordinate_bound, default the feature bound) inside the gradient
// pass, so |d l / d w_j| = |l'(z)| |x_j| <= L (|l'| <= 1 for logistic and
// Huber): the loss is L-Lipschitz in the L1 norm.
//
// With T = epochs iterations (the paper's T - 1), theta_1 = 0, for t = 1..T:
//   g = (1/n) sum_i grad l(theta_t; x_i, y_i) + lambda theta_t   (ALL rows:
//       one GradientLoss pass; the calibration assumes the full-data gradient)
//   alpha_{+j} = c g_j + Lap(b), alpha_{-j} = -c g_j + Lap(b)     (2d draws)
//   s = the corner of the smallest alpha;  theta_{t+1} = (1 - mu_t) theta_t + mu_t s,
//   mu_t = 1/(t+1) (Algorithm 5, line 6);
// release theta_{T+1}: it lies in the ball, no output noise.
//
// Privacy, replace-one: a replaced row moves each score by at most
// Delta = 2 L c / n in either direction (the scores of +c e_j and -c e_j move
// oppositely: not monotone), so report-noisy-min needs b = 2 Delta / eps_0 =
// 4 L c / (n eps_0) to be eps_0-DP (docs/pitfalls.md §P13: the reference code
// uses half). K one-vs-all models make K selections per iteration on the same
// rows; the K T selections compose by advanced composition (Dwork, Rothblum &
// Vadhan 2010) into (epsilon, delta): eps_0 is the largest per-selection
// epsilon with sqrt(2 K T ln(1/delta)) eps_0 + K T eps_0 (e^eps_0 - 1) <= epsilon.
//
// options.selection = 'exponential' draws each corner by the exponential
// mechanism instead (probability ∝ exp(-eps_0 score / (2 Delta)), McSherry &
// Talwar 2007): eps_0-DP and eps_0-bounded-range, hence eps_0^2/8-zCDP (Cesar &
// Rogers, ALT 2021; derivation in docs/pfw.md). The K T selections compose in
// zCDP: rho = K T eps_0^2 / 8, with rho the largest budget whose
// Canonne-Kamath-Steinke conversion (NeurIPS 2020, Corollary 13) gives
// (epsilon, delta); about 2.4 times the advanced-composition eps_0 at epsilon = 0.1.
#pragma once

#include <cstdint>

#include "core/algorithms/algorithm.h"
#include "core/error.h"

namespace dptrain {

// How a corner is chosen: report-noisy-min with Laplace noise (Algorithm 5,
// the default) or the exponential mechanism (options.selection).
enum class PfwSelection { Laplace = 0, Exponential = 1 };  // options.selection's order

struct PfwBudget {
  PfwSelection selection = PfwSelection::Laplace;
  std::int64_t selections = 0;   // K T noisy selections
  double epsilon_step = 0;       // eps_0 of each selection
  double coordinate_bound = 0;   // L used by the calibration: min(coordinate bound, feature bound)
  double score_sensitivity = 0;  // Delta = 2 L c / n (mean-gradient scale, replace-one)
  double laplace_scale = 0;      // Laplace: b = 2 Delta / eps_0; exponential: 0 (no Laplace draws)
  double rho = 0;                // exponential: the zCDP budget K T eps_0^2 / 8; Laplace: 0
};

PfwBudget pfw_budget(std::int64_t rows, int models, int iterations, double coordinate_bound, double l1_radius,
                     double epsilon, double delta, PfwSelection selection = PfwSelection::Laplace);

// A refusal of the selection noise (too large to draw, or an exponent out of
// range) restated with P-FW's arguments in the hint.
Error pfw_scale_error(const Error& e);

// The Frank-Wolfe step mu_t = 1/(t+1), t = 1, 2, ...
double pfw_step(int t);

class Pfw : public Algorithm {
 public:
  std::string name() const override { return "pfw"; }
  // No intercept unless asked for: the constant coordinate's gradient is the
  // largest in most steps, so the noisy vertex choice keeps picking it and the
  // model predicts one class (docs/intercept.md, measured).
  bool default_intercept() const override { return false; }
  bool reads_sums_only() const override { return true; }  // gradient/loss passes only
  TrainingPlan plan(const TrainingConfig& config) const override;
  std::unique_ptr<Run> start(const TrainingConfig& config) const override;
  void check_arguments(const TrainingConfig& config) const override;

 protected:
  // The noise scale the run uses (tests: a deliberately broken variant overrides it).
  virtual double laplace_scale(const PfwBudget& budget) const { return budget.laplace_scale; }
  // The exponential mechanism's epsilon the run uses (tests: a broken variant raises it).
  virtual double selection_epsilon(const PfwBudget& budget) const { return budget.epsilon_step; }
};

}  // namespace dptrain
