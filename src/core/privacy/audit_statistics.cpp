#include "core/privacy/audit_statistics.h"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <string>

#include "core/error.h"

namespace dptrain::privacy::audit {
namespace {

void check(std::int64_t k, std::int64_t n, double alpha) {
  if (n < 1 || k < 0 || k > n)
    fail(ErrorKind::InvalidParameter, "binomial counts out of range",
         "k = " + std::to_string(k) + ", n = " + std::to_string(n) + ".");
  if (!(alpha > 0 && alpha < 1)) fail(ErrorKind::InvalidParameter, "alpha must be in (0, 1)");
}

// ln((1 - delta - a) / b) for rates a, b, or 0 when it is undefined or negative.
double bound_from(double a, double b, double delta) {
  const double numerator = 1.0 - delta - a;
  if (!(numerator > 0)) return 0.0;
  if (!(b > 0)) return HUGE_VAL;
  return std::max(0.0, std::log(numerator / b));
}

}  // namespace

double clopper_pearson_upper(std::int64_t k, std::int64_t n, double alpha) {
  check(k, n, alpha);
  if (k == n) return 1.0;
  return boost::math::ibeta_inv(static_cast<double>(k + 1), static_cast<double>(n - k), 1.0 - alpha);
}

double clopper_pearson_lower(std::int64_t k, std::int64_t n, double alpha) {
  check(k, n, alpha);
  if (k == 0) return 0.0;
  return boost::math::ibeta_inv(static_cast<double>(k), static_cast<double>(n - k + 1), alpha);
}

EpsilonLowerBound epsilon_lower_bound(const ErrorCounts& c, double delta, double alpha) {
  if (!(delta >= 0 && delta < 1)) fail(ErrorKind::InvalidParameter, "delta must be in [0, 1)");
  EpsilonLowerBound r;
  r.fnr_upper = clopper_pearson_upper(c.false_negatives, c.runs_d, alpha / 2);
  r.fpr_upper = clopper_pearson_upper(c.false_positives, c.runs_d_prime, alpha / 2);
  // Upper bounds are never 0 (k = 0 gives 1 - (alpha/2)^(1/n) > 0), so the bound is finite.
  r.epsilon = std::max(bound_from(r.fnr_upper, r.fpr_upper, delta), bound_from(r.fpr_upper, r.fnr_upper, delta));
  const double fnr = static_cast<double>(c.false_negatives) / static_cast<double>(c.runs_d);
  const double fpr = static_cast<double>(c.false_positives) / static_cast<double>(c.runs_d_prime);
  r.point_estimate = std::max(bound_from(fnr, fpr, delta), bound_from(fpr, fnr, delta));
  return r;
}

}  // namespace dptrain::privacy::audit
