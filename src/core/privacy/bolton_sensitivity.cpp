#include "core/privacy/bolton_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/privacy/parameter_checks.h"

namespace dptrain::privacy::bolton {
namespace {

void check_shape(const RunShape& s) {
  if (s.rows < 1) bad_parameter("the sensitivity needs at least one row");
  if (s.batch_size < 1) bad_parameter("the sensitivity needs batch_size >= 1");
  if (s.epochs < 1) bad_parameter("the sensitivity needs at least one epoch");
}

// Convex bounds for a non-increasing schedule (Lemma 6 with mini-batches):
// epoch j contributes at most a_j = (2L/b) eta_{1 + jU} (the row at the first
// update of the epoch). Last iterate: sum_j a_j. Average: iterate t of epoch
// c is bounded by the c-epoch sum a_0 + ... + a_{c-1} (the row may already
// have been used in epoch c), each epoch holds U of the T = kU iterates, so
// the average is (1/k) sum_{c=1}^{k} sum_{j<c} a_j = sum_j a_j (k - j) / k.
template <typename Eta>
double convex_non_increasing(double lipschitz, const RunShape& shape, Output output, Eta eta_at) {
  const double U = static_cast<double>(shape.updates_per_epoch());
  const double b = static_cast<double>(shape.batch_size);
  const int k = shape.epochs;
  double sum = 0.0;
  for (int j = 0; j < k; ++j) {
    const double a = 2.0 * lipschitz / b * eta_at(1.0 + j * U);
    sum += output == Output::LastIterate ? a : a * (k - j) / k;
  }
  return sum;
}

// sum_{t=p}^{q} 1/t for 1 <= p <= q: directly for t < 4096, then the
// asymptotic expansion H_n = ln n + gamma_E + 1/(2n) - 1/(12 n^2) + 1/(120 n^4) - ...
// as a difference (log1p form, accurate also for short ranges at large n;
// the neglected term is below 1/(252 n^6) < 1e-23).
double harmonic_sum(double p, double q) {
  if (q < p) return 0.0;
  constexpr double kDirect = 4096.0;
  double s = 0.0;
  const double direct_end = std::min(q, kDirect - 1.0);
  for (double t = direct_end; t >= p; t -= 1.0) s += 1.0 / t;
  const double lo = std::max(p, kDirect) - 1.0;  // H_q - H_lo
  if (q > lo && q >= kDirect) {
    const double n1 = lo, n2 = q;
    s += std::log1p((n2 - n1) / n1) - (n2 - n1) / (2.0 * n1 * n2) -
         (1.0 / (n2 * n2) - 1.0 / (n1 * n1)) / 12.0 + (1.0 / std::pow(n2, 4) - 1.0 / std::pow(n1, 4)) / 120.0;
  }
  return s;
}

// sum_{t=p}^{q} min(1/beta, 1/(gamma t)).
double strongly_convex_step_sum(double beta, double gamma, double p, double q) {
  // t0 = the first t with gamma t >= beta, where the step becomes 1/(gamma t).
  const double t0 = std::ceil(beta / gamma);
  double s = 0.0;
  if (p < t0) s += (std::min(q, t0 - 1.0) - p + 1.0) / beta;
  if (q >= t0) s += harmonic_sum(std::max(p, t0), q) / gamma;
  return s;
}

}  // namespace

std::int64_t RunShape::updates_per_epoch() const { return (rows + batch_size - 1) / batch_size; }

double RunShape::total_updates() const { return static_cast<double>(epochs) * static_cast<double>(updates_per_epoch()); }

double convex_constant_step(double L, double beta, double eta, const RunShape& shape, Output output) {
  check_shape(shape);
  require_positive(L, "the Lipschitz constant");
  require_positive(beta, "the smoothness constant");
  require_positive(eta, "the learning rate");
  require_convex_step(eta, beta);
  const double k = shape.epochs, b = static_cast<double>(shape.batch_size);
  // Corollary 1 (b = 1) and §3.2.3 mini-batching: each epoch adds 2 L eta / b.
  if (output == Output::LastIterate) return 2.0 * k * L * eta / b;
  return 2.0 * L * eta / b * (k + 1.0) / 2.0;
}

double convex_decreasing_step(double L, double beta, double offset, const RunShape& shape, Output output) {
  check_shape(shape);
  require_positive(L, "the Lipschitz constant");
  require_positive(beta, "the smoothness constant");
  if (!(offset >= 0) || !std::isfinite(offset)) bad_parameter("the schedule offset m^c must be non-negative");
  // eta_t = 2/(beta (t + offset)) <= 2/beta for t >= 1: Lemma 1.1 holds.
  return convex_non_increasing(L, shape, output, [&](double t) { return 2.0 / (beta * (t + offset)); });
}

double convex_sqrt_step(double L, double beta, double offset, const RunShape& shape, Output output) {
  check_shape(shape);
  require_positive(L, "the Lipschitz constant");
  require_positive(beta, "the smoothness constant");
  if (!(offset >= 0) || !std::isfinite(offset)) bad_parameter("the schedule offset m^c must be non-negative");
  return convex_non_increasing(L, shape, output, [&](double t) { return 2.0 / (beta * (std::sqrt(t) + offset)); });
}

// Lemma 8 with mini-batches. Let s be the differing update, T' >= s an iterate.
// Its contribution to delta_{T'} is c(s, T') = (2L/b) eta_s prod_{u=s+1}^{T'} (1 - gamma eta_u).
// Claim: c(s, T') <= (2L/b) eta_{T'} = (2L/b) min(1/beta, 1/(gamma T')).
//  * c <= (2L/b)/beta since eta_s <= 1/beta and every factor is in [0, 1].
//  * If s >= t0 = ceil(beta/gamma), every later step is 1/(gamma u) and the
//    product telescopes: prod (1 - 1/u) = s/T', so c = (2L/b)/(gamma T').
//  * If s < t0 <= T': c <= (2L/(b beta)) prod_{u=t0}^{T'} (1 - 1/u)
//    = (2L/(b beta)) (t0 - 1)/T' < (2L/b)/(gamma T') as t0 - 1 < beta/gamma.
//  * If T' < t0: then T' < beta/gamma, so 1/beta < 1/(gamma T') and the first
//    case already gives the claim.
// Last iterate: k epochs contribute at most (2L/b) eta_T each:
//   Delta = k (2L/b) eta_T, with eta_T = 1/(gamma k U) once T >= beta/gamma,
//   i.e. 2L/(gamma b U) <= 2L/(gamma m) (b U >= m), independent of k.
// Average: iterate t of epoch c = ceil(t/U) has Delta_t <= c (2L/b) eta_t,
//   so Delta_avg = (2L/(b T)) sum_{c=1}^{k} c sum_{t in epoch c} eta_t.
double strongly_convex_decreasing_step(double L, double beta, double gamma, const RunShape& shape, Output output) {
  check_shape(shape);
  require_positive(L, "the Lipschitz constant");
  require_positive(beta, "the smoothness constant");
  require_positive(gamma, "the strong convexity constant");
  if (gamma > beta) bad_parameter("the strong convexity (" + short_number(gamma) + ") cannot exceed the smoothness (" + short_number(beta) + ")");
  const double b = static_cast<double>(shape.batch_size);
  const double U = static_cast<double>(shape.updates_per_epoch());
  const double T = shape.total_updates();
  if (output == Output::LastIterate) {
    const double eta_T = std::min(1.0 / beta, 1.0 / (gamma * T));
    return shape.epochs * 2.0 * L / b * eta_T;
  }
  double weighted = 0.0;
  for (int c = 1; c <= shape.epochs; ++c)
    weighted += c * strongly_convex_step_sum(beta, gamma, (c - 1) * U + 1.0, c * U);
  return 2.0 * L / (b * T) * weighted;
}

// Lemma 7 with mini-batches: rho = 1 - eta gamma in [0, 1) (eta <= 1/beta
// makes every update rho-expansive, Lemma 2). A differing update s
// contributes (2 eta L / b) rho^{T'-s} to iterate T'.
// Last iterate: the worst position is the last update of each epoch (s = jU),
//   Delta = (2 eta L / b) sum_{i=0}^{k-1} rho^{iU} = (2 eta L / b) G_k,
//   G_n = (1 - rho^{nU}) / (1 - rho^U)  (the paper's 1/(1 - rho^{m/b}) as k -> inf).
// Average: iterate t = (c-1)U + j (epoch c, 1 <= j <= U): the current epoch's
//   worst position is s = t (contribution 1), an earlier epoch e's is s = eU
//   (rho^{t - eU}); so Delta_t = (2 eta L / b)(1 + rho^j G_{c-1}) and
//   Delta_avg = (2 eta L / b)(1 + (1/T) (sum_{j=1}^{U} rho^j) sum_{c=1}^{k} G_{c-1}).
double strongly_convex_constant_step(double L, double beta, double gamma, double eta, const RunShape& shape,
                                     Output output) {
  check_shape(shape);
  require_positive(L, "the Lipschitz constant");
  require_positive(beta, "the smoothness constant");
  require_positive(gamma, "the strong convexity constant");
  require_positive(eta, "the learning rate");
  if (gamma > beta) bad_parameter("the strong convexity (" + short_number(gamma) + ") cannot exceed the smoothness (" + short_number(beta) + ")");
  require_strongly_convex_step(eta, beta);
  const double b = static_cast<double>(shape.batch_size);
  const double U = static_cast<double>(shape.updates_per_epoch());
  const double base = 2.0 * eta * L / b;
  const double eg = eta * gamma;  // in (0, 1]
  // G_n = sum_{i<n} rho^{iU}, computed as expm1(n U ln rho) / expm1(U ln rho).
  // eta gamma below the smallest double (eta = 1e-300, gamma = 1e-300) rounds to 0: rho = 1 and
  // every power of it is 1, so G_n = n and the head sum is U (the limits of the quotients below,
  // which are 0/0 there: the bound was NaN).
  auto G = [&](int n) -> double {
    if (n == 0) return 0.0;
    if (eg >= 1.0) return 1.0;  // rho = 0: only the i = 0 term
    if (eg == 0.0) return static_cast<double>(n);
    const double lr = std::log1p(-eg);
    return std::expm1(n * U * lr) / std::expm1(U * lr);
  };
  if (output == Output::LastIterate) return base * G(shape.epochs);
  // sum_{j=1}^{U} rho^j = rho (1 - rho^U) / (1 - rho).
  const double rho = 1.0 - eg;
  const double head = eg >= 1.0 ? 0.0 : eg == 0.0 ? U : rho * -std::expm1(U * std::log1p(-eg)) / eg;
  double sum_g = 0.0;
  for (int c = 1; c <= shape.epochs; ++c) sum_g += G(c - 1);
  return base * (1.0 + head * sum_g / shape.total_updates());
}

Bound sensitivity(const StepSchedule& s, const LossConstants& k, const RunShape& shape, Output output) {
  const double L = k.lipschitz, beta = k.smoothness, gamma = k.strong_convexity;
  Bound r;
  switch (s.kind) {
    case ScheduleKind::Constant:
      if (gamma > 0) {
        r.sensitivity = strongly_convex_constant_step(L, beta, gamma, s.eta, shape, output);
        r.strongly_convex = true;
        r.rule = "Bolt-on Lemma 7 (strongly convex, constant step), mini-batch form (2 eta L / b) sum_j (1 - eta gamma)^(j ceil(m/b))";
      } else {
        r.sensitivity = convex_constant_step(L, beta, s.eta, shape, output);
        r.rule = "Bolt-on Corollary 1 (convex, constant step): 2 k L eta / b";
      }
      break;
    case ScheduleKind::Decreasing:
      if (s.beta < beta) fail(ErrorKind::Internal, "the decreasing schedule's beta is below the loss smoothness");
      r.sensitivity = convex_decreasing_step(L, s.beta, s.offset, shape, output);
      r.rule = "Bolt-on Corollary 2 (convex, decreasing step), exact sum (2L/b) sum_j eta_(1 + j ceil(m/b))";
      break;
    case ScheduleKind::Sqrt:
      if (s.beta < beta) fail(ErrorKind::Internal, "the sqrt schedule's beta is below the loss smoothness");
      r.sensitivity = convex_sqrt_step(L, s.beta, s.offset, shape, output);
      r.rule = "Bolt-on Corollary 3 (convex, square-root step), exact sum (2L/b) sum_j eta_(1 + j ceil(m/b))";
      break;
    case ScheduleKind::StronglyConvex:
      if (s.beta < beta || s.gamma > gamma || !(s.gamma > 0))
        fail(ErrorKind::Internal, "the strongly convex schedule does not match the loss constants");
      r.sensitivity = strongly_convex_decreasing_step(L, s.beta, s.gamma, shape, output);
      r.strongly_convex = true;
      r.rule = "Bolt-on Lemma 8 (strongly convex, step min(1/beta, 1/(gamma t))): k (2L/b) min(1/beta, 1/(gamma T)) <= 2L/(gamma m)";
      break;
    case ScheduleKind::InverseSqrt:
      bad_parameter("the inverse_sqrt schedule has no Bolt-on sensitivity bound",
          "Use schedule constant, decreasing or sqrt (lambda = 0), or strongly_convex (lambda > 0).");
  }
  if (output == Output::UniformAverage) r.rule += "; averaged iterates: (1/T) sum_t Delta_t (Lemma 10)";
  return r;
}

}  // namespace dptrain::privacy::bolton
