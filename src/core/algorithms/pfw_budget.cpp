// P-FW's privacy budget: the per-selection epsilon and the noise of each
// choice of a corner (pfw.h has the analysis, docs/pfw.md the derivation).
#include <cmath>
#include <string>

#include "core/algorithms/pfw.h"
#include "core/privacy/composition.h"
#include "core/privacy/parameter_checks.h"
#include "core/privacy/report_noisy_min.h"
#include "core/privacy/zcdp.h"

namespace dptrain {
namespace {

// The score sensitivity Delta = 2 L c / n, refused with the caller's arguments
// when it is not a positive finite double (a radius near the double range
// overflowed and was refused as "the score sensitivity must be positive and
// finite, got inf", naming nothing the caller passed and with no hint).
double score_sensitivity(std::int64_t rows, double coordinate_bound, double l1_radius) {
  // Replace-one: each row adds l'(z) y x_j / n with |l'(z) x_j| <= L to g_j, so
  // c g_j moves by at most 2 L c / n.
  const double delta_score = 2.0 * coordinate_bound * l1_radius / static_cast<double>(rows);
  if (!(delta_score > 0) || !std::isfinite(delta_score))
    fail(ErrorKind::InvalidParameter,
         "radius " + privacy::short_number(l1_radius) + " with coordinate bound " +
             privacy::short_number(coordinate_bound) + " is outside the range of pfw",
         "The sensitivity of its scores, 2 L c / n = 2 * " + privacy::short_number(coordinate_bound) + " * " +
             privacy::short_number(l1_radius) + " / " + std::to_string(rows) + ", is not a positive finite double.",
         "Use a radius (the AMP paper's grid: 1, 10, 100, 500) and an options.coordinate_bound or row_bound "
         "(its grid: 1, 0.1, 0.01) of ordinary size.");
  return delta_score;
}

// Report-noisy-min with Laplace noise: K T eps_0-DP selections composed by
// advanced composition (Dwork, Rothblum & Vadhan 2010) with slack delta:
// (sqrt(2 K T ln(1/delta)) eps_0 + K T eps_0 (e^eps_0 - 1), delta)-DP.
// Non-monotone scores: Laplace(2 Delta / eps_0) (docs/pitfalls.md §P13).
void laplace_budget(PfwBudget& b, double epsilon, double delta) {
  b.epsilon_step = privacy::advanced_composition_step_epsilon(epsilon, b.selections, delta);
  // Delta and eps_0 are positive and finite here: what noisy_min_scale can
  // still refuse is a scale too large to draw, whose hint named the
  // arguments of other algorithms (clip, learning rate).
  try {
    b.laplace_scale = privacy::noisy_min_scale(b.score_sensitivity, b.epsilon_step, /*monotone=*/false);
  } catch (const Error& e) {
    throw pfw_scale_error(e);
  }
}

// The exponential mechanism with eps_0 is eps_0-bounded-range, hence
// eps_0^2/8-zCDP (Cesar & Rogers, ALT 2021; docs/pfw.md); K T of them compose
// to rho = K T eps_0^2 / 8 (Bun & Steinke 2016, Lemma 1.7). rho is the largest
// budget whose CKS conversion (Canonne, Kamath & Steinke 2020, Corollary 13)
// gives (epsilon, delta), so eps_0 = sqrt(8 rho / (K T)).
void exponential_budget(PfwBudget& b, double epsilon, double delta) {
  b.rho = privacy::dp_to_zcdp_rho_cks(epsilon, delta);
  b.epsilon_step = std::sqrt(8 * b.rho / static_cast<double>(b.selections));
  // A tiny epsilon (1e-200) makes rho underflow to 0: refused naming what the caller passed.
  if (!(b.epsilon_step > 0) || !std::isfinite(b.epsilon_step))
    fail(ErrorKind::InvalidParameter, "epsilon " + privacy::short_number(epsilon) + " is outside the range of pfw",
         "Its exponential selections get epsilon_0 = sqrt(8 rho / (K T)) = " +
             privacy::short_number(b.epsilon_step) + " from rho = " + privacy::short_number(b.rho) +
             " (delta = " + privacy::short_number(delta) + ", K T = " + std::to_string(b.selections) + ").",
         "Use a larger epsilon (e.g. 0.01 .. 10).");
}

}  // namespace

Error pfw_scale_error(const Error& e) {
  return Error(e.kind(), "the selection noise of pfw is too large to draw",
               "The noise of its selections (scale 2 Delta / epsilon_0) is too large. " + e.detail(),
               "Use a radius of ordinary size (the AMP paper's grid: 1, 10, 100, 500), a smaller "
               "options.coordinate_bound or a larger epsilon.");
}

PfwBudget pfw_budget(std::int64_t rows, int models, int iterations, double coordinate_bound, double l1_radius,
                     double epsilon, double delta, PfwSelection selection) {
  privacy::require_positive(l1_radius, "the L1 radius c");
  privacy::require_positive(coordinate_bound, "the coordinate bound L");
  if (rows < 1 || models < 1 || iterations < 1) fail(ErrorKind::Internal, "pfw_budget: bad counts");
  PfwBudget b;
  b.selection = selection;
  b.selections = static_cast<std::int64_t>(models) * iterations;
  b.coordinate_bound = coordinate_bound;
  b.score_sensitivity = score_sensitivity(rows, coordinate_bound, l1_radius);
  if (selection == PfwSelection::Laplace) {
    laplace_budget(b, epsilon, delta);
  } else {
    exponential_budget(b, epsilon, delta);
  }
  return b;
}

}  // namespace dptrain
