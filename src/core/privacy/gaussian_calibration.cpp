#include "core/privacy/gaussian_calibration.h"

#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;  // ln(sqrt(2 pi))

void require_finite_positive(double value, const char* name) {
  if (!std::isfinite(value) || value <= 0)
    fail(ErrorKind::InvalidParameter, std::string(name) + " must be a finite number > 0",
         std::string(name) + " = " + std::to_string(value));
}

void require_delta(double delta) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)", "delta = " + std::to_string(delta),
         "typical choices are delta < 1/n for n training rows, e.g. 1e-5 or 1e-8");
}

// Standard normal CDF Phi(x) = erfc(-x / sqrt(2)) / 2 (accurate in both tails).
double normal_cdf(double x) {
  return 0.5 * boost::math::erfc(-x * boost::math::double_constants::one_div_root_two);
}

// Mills ratio R(x) = Phi(-x) / phi(x) for x >= 0 (phi = standard normal density).
// R is smooth and decreasing (R(0) = sqrt(pi/2), R(x) ~ 1/x), so it carries the
// tail of Phi without underflow. Direct formula where erfc and exp stay in range,
// otherwise the classical continued fraction 1/(x+ 1/(x+ 2/(x+ 3/(x+ ...)))),
// which converges fast for large x.
double mills_ratio(double x) {
  if (x < 25) {
    return 0.5 * boost::math::erfc(x * boost::math::double_constants::one_div_root_two) *
           std::exp(x * x / 2 + kHalfLog2Pi);
  }
  double tail = x;
  for (int k = 80; k >= 1; --k) tail = x + k / tail;
  return 1 / tail;
}

// 1 - x R(x) = -R'(x) > 0, the integrand below. For x >= 25 from the continued
// fraction tail t = x + 1/(x + 2/(...)), R = 1/t: 1 - x/t = (t - x)/t, no cancellation.
double one_minus_x_mills(double x) {
  if (x < 25) return 1 - x * mills_ratio(x);
  double inner = x;
  for (int k = 80; k >= 2; --k) inner = x + k / inner;
  const double tail = x + 1 / inner;
  return (1 / inner) / tail;
}

// R(lo) - R(hi) for 0 <= lo < hi. A plain difference loses digits when hi - lo is
// small (small epsilon: a = Delta/(2 sigma) is tiny), so short intervals integrate
// -R' = 1 - xR(x) with 10-point Gauss-Legendre (R is entire, so the rule is
// accurate to rounding on intervals of width <= 0.5).
double mills_ratio_drop(double lo, double hi) {
  if (hi - lo > 0.5) return mills_ratio(lo) - mills_ratio(hi);
  static constexpr double kNodes[5] = {0.14887433898163121, 0.43339539412924719,
                                       0.67940956829902441, 0.86506336668898451,
                                       0.97390652851717172};
  static constexpr double kWeights[5] = {0.29552422471475287, 0.26926671930999636,
                                         0.21908636251598204, 0.14945134915058059,
                                         0.066671344308688138};
  const double mid = (lo + hi) / 2, half = (hi - lo) / 2;
  double sum = 0;
  for (int i = 0; i < 5; ++i)
    sum += kWeights[i] * (one_minus_x_mills(mid - half * kNodes[i]) + one_minus_x_mills(mid + half * kNodes[i]));
  return sum * half;
}

// ln delta(sigma) of the analytic Gaussian mechanism (see analytic_gaussian_delta).
// With a = Delta/(2 sigma), b = epsilon sigma / Delta (so epsilon = 2ab) one has
// e^epsilon phi(a + b) = phi(a - b), hence
//   delta = Phi(a - b) - phi(a - b) R(a + b).
// For b > a, Phi(a - b) = phi(b - a) R(b - a) as well, so
//   delta = phi(a - b) (R(b - a) - R(a + b)),
// which is evaluated in log space: no overflow of e^epsilon, no underflow of the tails.
double log_analytic_delta(double sensitivity, double sigma, double epsilon) {
  const double a = sensitivity / (2 * sigma);
  const double b = epsilon * sigma / sensitivity;
  if (a >= b) {
    const double d = a - b;
    const double value = normal_cdf(d) - std::exp(-d * d / 2 - kHalfLog2Pi) * mills_ratio(a + b);
    return value > 0 ? std::log(value) : -std::numeric_limits<double>::infinity();
  }
  const double d = b - a;
  const double diff = mills_ratio_drop(d, a + b);
  if (!(diff > 0)) return -std::numeric_limits<double>::infinity();
  return -d * d / 2 - kHalfLog2Pi + std::log(diff);
}

// Balle & Wang (2018), Theorem 8 / Algorithm 1: delta(sigma) decreases strictly from
// 1 (sigma -> 0) to 0 (sigma -> infinity), so the smallest sufficient sigma is found by
// bisection on ln sigma. Returns the upper end of the final bracket, which satisfies
// delta(sigma) <= delta: rounding errs on the side of more noise.
double analytic_sigma(double sensitivity, double epsilon, double delta) {
  const double target = std::log(delta);
  auto sufficient = [&](double sigma) {
    return log_analytic_delta(sensitivity, sigma, epsilon) <= target;
  };
  // Start near the classic value and expand geometrically until bracketed.
  double hi = sensitivity * std::sqrt(2 * std::log(1.25 / delta)) / epsilon;
  double lo = hi;
  for (int i = 0; !sufficient(hi); ++i) {
    if (i > 2000 || !std::isfinite(hi))
      fail(ErrorKind::Internal, "analytic Gaussian calibration: no sufficient sigma found");
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; sufficient(lo); ++i) {
    if (i > 2000 || lo == 0)
      fail(ErrorKind::Internal, "analytic Gaussian calibration: no insufficient sigma found");
    hi = lo;
    lo /= 2;
  }
  // Invariant: lo insufficient, hi sufficient.
  for (int i = 0; i < 200 && hi / lo - 1 > 1e-14; ++i) {
    const double mid = std::sqrt(lo * hi);
    if (mid <= lo || mid >= hi) break;
    (sufficient(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

GaussianCalibration parse_gaussian_calibration(const std::string& name) {
  if (name == "analytic") return GaussianCalibration::Analytic;
  if (name == "classic") return GaussianCalibration::Classic;
  if (name == "amp") return GaussianCalibration::Amp;
  fail(ErrorKind::InvalidParameter, "unknown Gaussian calibration \"" + name + "\"", {},
       "use one of: analytic (exact, any epsilon), classic (Dwork-Roth, epsilon < 1), amp");
}

std::string gaussian_calibration_name(GaussianCalibration method) {
  switch (method) {
    case GaussianCalibration::Analytic: return "analytic";
    case GaussianCalibration::Classic: return "classic";
    case GaussianCalibration::Amp: return "amp";
  }
  fail(ErrorKind::Internal, "invalid GaussianCalibration value");
}

double analytic_gaussian_delta(double sensitivity, double sigma, double epsilon) {
  require_finite_positive(sensitivity, "sensitivity");
  require_finite_positive(sigma, "sigma");
  if (!std::isfinite(epsilon) || epsilon < 0)
    fail(ErrorKind::InvalidParameter, "epsilon must be a finite number >= 0",
         "epsilon = " + std::to_string(epsilon));
  return std::exp(log_analytic_delta(sensitivity, sigma, epsilon));
}

double gaussian_sigma(double sensitivity, double epsilon, double delta, GaussianCalibration method) {
  require_finite_positive(sensitivity, "sensitivity");
  require_finite_positive(epsilon, "epsilon");
  require_delta(delta);
  switch (method) {
    case GaussianCalibration::Classic:
      // Dwork & Roth (2014), Theorem A.1: valid for epsilon in (0, 1) only.
      if (epsilon >= 1)
        fail(ErrorKind::InvalidParameter, "the classic Gaussian calibration requires epsilon < 1",
             "epsilon = " + std::to_string(epsilon),
             "use the analytic calibration (exact for every epsilon > 0)");
      return sensitivity * std::sqrt(2 * std::log(1.25 / delta)) / epsilon;
    case GaussianCalibration::Amp:
      // Iyengar et al. (2019), Lemma III.1.
      return sensitivity * (1 + std::sqrt(2 * std::log(1 / delta))) / epsilon;
    case GaussianCalibration::Analytic:
      return analytic_sigma(sensitivity, epsilon, delta);
  }
  fail(ErrorKind::Internal, "invalid GaussianCalibration value");
}

}  // namespace dptrain::privacy
