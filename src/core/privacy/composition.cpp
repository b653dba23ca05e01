#include "core/privacy/composition.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/privacy/messages.h"

namespace dptrain::privacy {
namespace {

void require_epsilon(double epsilon, const char* name, bool allow_zero) {
  if (!std::isfinite(epsilon) || epsilon < 0 || (!allow_zero && epsilon == 0))
    fail(ErrorKind::InvalidParameter,
         std::string(name) + (allow_zero ? " must be a finite number >= 0" : " must be a finite number > 0"),
         std::string(name) + " = " + show(epsilon), "epsilon is a privacy loss: a finite number such as 0.1, 1 or 10.");
}

void require_delta(double delta, const char* name, bool allow_zero) {
  if (!(delta < 1 && (allow_zero ? delta >= 0 : delta > 0)))
    fail(ErrorKind::InvalidParameter,
         std::string(name) + (allow_zero ? " must be in [0, 1)" : " must be in (0, 1)"),
         std::string(name) + " = " + show(delta), "delta is a probability below 1, typically far below 1/n for n rows (e.g. 1e-5).");
}

void require_steps(std::int64_t k) {
  if (k < 1)
    fail(ErrorKind::InvalidParameter, "k (the number of composed mechanisms) must be >= 1",
         "k = " + std::to_string(k), "k counts the mechanisms composed: 1 or more.");
}

// epsilon' of the advanced composition theorem.
double advanced_epsilon(double epsilon, double k, double log_inv_delta_prime) {
  return std::sqrt(2 * k * log_inv_delta_prime) * epsilon + k * epsilon * std::expm1(epsilon);
}

}  // namespace

DpGuarantee basic_composition(const std::vector<DpGuarantee>& parts) {
  DpGuarantee total{0, 0};
  for (const DpGuarantee& part : parts) {
    require_epsilon(part.epsilon, "epsilon", true);
    require_delta(part.delta, "delta", true);
    total.epsilon += part.epsilon;
    total.delta += part.delta;
  }
  return total;
}

DpGuarantee basic_composition(double epsilon, double delta, std::int64_t k) {
  require_epsilon(epsilon, "epsilon", true);
  require_delta(delta, "delta", true);
  require_steps(k);
  return {static_cast<double>(k) * epsilon, static_cast<double>(k) * delta};
}

DpGuarantee advanced_composition(double epsilon, double delta, std::int64_t k, double delta_prime) {
  require_epsilon(epsilon, "epsilon", false);
  require_delta(delta, "delta", true);
  require_steps(k);
  require_delta(delta_prime, "delta_prime", false);
  const double total_delta = static_cast<double>(k) * delta + delta_prime;
  if (!(total_delta < 1))
    fail(ErrorKind::InvalidParameter, "the composed delta k * delta + delta_prime is >= 1 (no guarantee)",
         "k * delta + delta_prime = " + show(total_delta),
         "use a smaller delta or delta_prime");
  const double total_epsilon = advanced_epsilon(epsilon, static_cast<double>(k), -std::log(delta_prime));
  if (!std::isfinite(total_epsilon))
    fail(ErrorKind::InvalidParameter, "the composed epsilon overflows", "epsilon = " + show(epsilon),
         "advanced composition is meant for small per-step epsilon");
  return {total_epsilon, total_delta};
}

double advanced_composition_step_epsilon(double total_epsilon, std::int64_t k, double delta_prime) {
  require_epsilon(total_epsilon, "total_epsilon", false);
  require_steps(k);
  require_delta(delta_prime, "delta_prime", false);
  const double kd = static_cast<double>(k);
  const double log_inv = -std::log(delta_prime);
  // epsilon' >= sqrt(2 k ln(1/delta')) eps and epsilon' >= k eps^2 (as e^eps - 1 >= eps), so the
  // root lies below both bounds: [0, hi] brackets it.
  double lo = 0;
  double hi = std::min(total_epsilon / std::sqrt(2 * kd * log_inv), std::sqrt(total_epsilon / kd));
  if (advanced_epsilon(hi, kd, log_inv) <= total_epsilon) return hi;  // only by rounding
  // Invariant: epsilon'(lo) <= total < epsilon'(hi). epsilon' is strictly increasing.
  // Enough halvings for any double: hi can be ~1e154 (total 1e308) with the root
  // near 700 (e^eps_0 overflows above), ~520 halvings, then ~50 to the 1e-15
  // tolerance; with 200 a total of 1e300 ended at lo = 0 ("epsilon of
  // report-noisy-min must be positive", pfw). lo stays feasible throughout.
  for (int i = 0; i < 2200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (advanced_epsilon(mid, kd, log_inv) <= total_epsilon ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace dptrain::privacy
