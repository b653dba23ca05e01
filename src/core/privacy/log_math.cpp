#include "core/privacy/log_math.h"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>

#include "core/error.h"

namespace dptrain::privacy::log_math {

double log_add(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == kNegInf) return a;
  return a + std::log1p(std::exp(b - a));
}

double log_sub(double a, double b) {
  if (b == kNegInf) return a;
  if (a < b) fail(ErrorKind::Internal, "log_sub: the difference would be negative");
  if (a == b) return kNegInf;
  // e^a - e^b = e^a (1 - e^(b - a)) = -e^a expm1(b - a).
  return a + std::log(-std::expm1(b - a));
}

double log_expm1(double x) {
  if (x > 36) return x + std::log1p(-std::exp(-x));
  return std::log(std::expm1(x));
}

double log1p_exp(double x) {
  if (x > 36) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

double log_erfc(double x) {
  if (x < 20) return std::log(boost::math::erfc(x));
  // Continued fraction of the Mills ratio: erfc(x) = e^(-x^2) / sqrt(pi) * 2t / (2t^2 ... ), written as
  // erfc(x) = e^(-x^2) / (x sqrt(pi)) * F(x) with F = 1 / (1 + 1/(2x^2) / (1 + 2/(2x^2) / (1 + ...))).
  // Evaluated bottom-up; for x >= 20 forty levels are far more than enough.
  const double u = 1 / (2 * x * x);
  double f = 1;
  for (int k = 40; k >= 1; --k) f = 1 + k * u / f;
  return -x * x - std::log(x) - 0.57236494292470008707 /* ln sqrt(pi) */ - std::log(f);
}

}  // namespace dptrain::privacy::log_math
