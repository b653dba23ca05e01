#include "core/privacy/gaussian_calibration.h"

#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/privacy/messages.h"

namespace dptrain::privacy {
namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;  // ln(sqrt(2 pi))

void require_finite_positive(double value, const char* name) {
  if (!std::isfinite(value) || value <= 0)
    fail(ErrorKind::InvalidParameter, std::string(name) + " must be a finite number > 0",
         std::string(name) + " = " + std::to_string(value),
         "Pass positive finite numbers (a training run derives the sensitivity from lambda, the step and n: "
         "extreme values make it 0 or infinite).");
}

void require_delta(double delta) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)", "delta = " + std::to_string(delta),
         "typical choices are delta < 1/n for n training rows, e.g. 1e-5 or 1e-8");
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

// ln(R(c - h) - R(c + h)) for 0 <= h <= c: the drop of R across [c - h, c + h]. The interval
// is given by its centre and half-width, not by its ends: for small epsilon the half-width
// a = Delta/(2 sigma) can be far below the rounding of c = b (epsilon = 1e-300 at delta =
// 1e-300 puts a below 2^-53 b), and (b + a) - (b - a) would then be 0, i.e. "delta = 0" for
// a sigma that is 1e141 times too small. Short intervals integrate -R' = 1 - xR(x) > 0 with
// 10-point Gauss-Legendre (R is entire, so the rule is accurate to rounding on intervals of
// width <= 0.5); the logarithm is taken of the half-width and the mean separately, so a tiny
// half-width does not underflow to a drop of 0.
double log_mills_ratio_drop(double c, double h) {
  if (h > 0.25) {
    const double drop = mills_ratio(c - h) - mills_ratio(c + h);
    return drop > 0 ? std::log(drop) : std::numeric_limits<double>::quiet_NaN();
  }
  static constexpr double kNodes[5] = {0.14887433898163121, 0.43339539412924719,
                                       0.67940956829902441, 0.86506336668898451,
                                       0.97390652851717172};
  static constexpr double kWeights[5] = {0.29552422471475287, 0.26926671930999636,
                                         0.21908636251598204, 0.14945134915058059,
                                         0.066671344308688138};
  double sum = 0;
  for (int i = 0; i < 5; ++i)
    sum += kWeights[i] * (one_minus_x_mills(c - h * kNodes[i]) + one_minus_x_mills(c + h * kNodes[i]));
  return std::log(h) + std::log(sum);
}

// ln delta(s) of the analytic Gaussian mechanism for sensitivity 1 and noise s (delta depends
// on sigma / Delta only, so the caller divides by Delta: no product epsilon * sigma or ratio
// Delta / sigma can overflow). With a = 1/(2 s), b = epsilon s (so epsilon = 2ab) one has
// e^epsilon phi(a + b) = phi(a - b), hence
//   delta = Phi(a - b) - phi(a - b) R(a + b).
// a >= b: delta = [Phi(a - b) - Phi(-a - b)] - (e^epsilon - 1) Phi(-a - b), where the
//   bracket is P(-(a + b) < Z < a - b) = (erf((a - b)/sqrt 2) + erf((a + b)/sqrt 2)) / 2, a sum
//   of two terms >= 0, and (e^epsilon - 1) Phi(-a - b) = -expm1(-epsilon) phi(a - b) R(a + b).
//   Written as Phi(a - b) - phi(a - b) R(a + b) instead, both terms are near 1/2 when a and b
//   are small (epsilon tiny), and a delta of 1e-100 came out as 0 ("sufficient").
// b > a: Phi(a - b) = phi(b - a) R(b - a) as well, so
//   delta = phi(a - b) (R(b - a) - R(a + b)),
// evaluated in log space: no overflow of e^epsilon, no underflow of the tails.
// Anything that is not a number (an overflow) is returned as NaN, which the caller treats
// as "not sufficient": rounding may cost noise, never remove it.
double log_analytic_delta_unit(double s, double epsilon) {
  const double a = 1 / (2 * s);
  const double b = epsilon * s;
  if (!std::isfinite(a) || !std::isfinite(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a >= b) {
    const double d = a - b;
    const double inside = 0.5 * (boost::math::erf(d * boost::math::double_constants::one_div_root_two) +
                                 boost::math::erf((a + b) * boost::math::double_constants::one_div_root_two));
    const double outside = -std::expm1(-epsilon) * std::exp(-d * d / 2 - kHalfLog2Pi) * mills_ratio(a + b);
    const double value = inside - outside;
    return value > 0 ? std::log(value) : std::numeric_limits<double>::quiet_NaN();
  }
  const double d = b - a;
  return -d * d / 2 - kHalfLog2Pi + log_mills_ratio_drop(b, a);
}

// ln P(L > epsilon) for the privacy loss L ~ N(mu, 2 mu), mu = 1/(2 s^2), of N(0, s^2) noise on a
// query of sensitivity 1: ln Phi(a - b), a = 1/(2 s), b = epsilon s. For b >= a through the Mills
// ratio, Phi(-x) = phi(x) R(x) (no underflow); otherwise Phi(a - b) >= 1/2 directly. NaN if
// not representable (the caller refuses).
double log_gaussian_loss_tail(double s, double epsilon) {
  const double a = 1 / (2 * s);
  const double b = epsilon * s;
  if (!std::isfinite(a) || !std::isfinite(b)) return std::numeric_limits<double>::quiet_NaN();
  if (b >= a) {
    const double x = b - a;
    return -x * x / 2 - kHalfLog2Pi + std::log(mills_ratio(x));
  }
  return std::log1p(-0.5 * boost::math::erfc((a - b) * boost::math::double_constants::one_div_root_two));
}

void refuse_unrepresentable_sigma(double sensitivity, double epsilon, double delta) {
  fail(ErrorKind::InvalidParameter, "the Gaussian noise for these parameters is not a positive finite number",
       "sensitivity = " + show(sensitivity) + ", epsilon = " + show(epsilon) + ", delta = " + show(delta),
       "use an epsilon, delta and sensitivity of ordinary size (e.g. epsilon 0.01 .. 10, delta 1e-12 .. 1e-3)");
}

// A sigma that overflowed (a huge sensitivity over a tiny epsilon) or is subnormal is refused,
// never returned as inf or as a value that lost its precision.
double finite_sigma(double sigma, double sensitivity, double epsilon, double delta) {
  if (!std::isfinite(sigma) || sigma < std::numeric_limits<double>::min())
    refuse_unrepresentable_sigma(sensitivity, epsilon, delta);
  return sigma;
}

// Balle & Wang (2018), Theorem 8 / Algorithm 1: delta(sigma) decreases strictly from
// 1 (sigma -> 0) to 0 (sigma -> infinity), so the smallest sufficient sigma is found by
// bisection on ln sigma, for sensitivity 1 (the result is then scaled by Delta). Returns the
// upper end of the final bracket, which satisfies delta(sigma) <= delta with a margin of
// 1e-13 in ln delta (so that exp(ln delta(sigma)), as analytic_gaussian_delta returns it,
// is <= delta too): rounding errs on the side of more noise.
double analytic_sigma(double sensitivity, double epsilon, double delta) {
  const double log_delta = std::log(delta);
  const double target = log_delta - 1e-13 * (1 - log_delta);
  auto sufficient = [&](double s) { return log_analytic_delta_unit(s, epsilon) <= target; };
  // Start near the classic value (ln(1.25/delta) in log form: 1.25/delta overflows for a
  // subnormal delta) and expand geometrically until bracketed.
  double hi = std::sqrt(2 * (std::log(1.25) - log_delta)) / epsilon;
  if (!std::isfinite(hi)) hi = std::numeric_limits<double>::max();
  double lo = hi;
  for (int i = 0; !sufficient(hi); ++i) {
    if (i > 2100 || !std::isfinite(hi * 2)) refuse_unrepresentable_sigma(sensitivity, epsilon, delta);
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; sufficient(lo); ++i) {
    if (i > 2100 || lo == 0)
      fail(ErrorKind::Internal, "analytic Gaussian calibration: no insufficient sigma found");
    hi = lo;
    lo /= 2;
  }
  // Invariant: lo insufficient, hi sufficient.
  for (int i = 0; i < 200 && hi / lo - 1 > 1e-14; ++i) {
    const double mid = std::sqrt(lo) * std::sqrt(hi);
    if (mid <= lo || mid >= hi) break;
    (sufficient(mid) ? hi : lo) = mid;
  }
  // Delta * s rounded up (one ulp), and refused where it overflows or leaves the normal range
  // (a subnormal sigma has lost the precision the search had).
  return finite_sigma(std::nextafter(sensitivity * hi, std::numeric_limits<double>::infinity()), sensitivity,
                      epsilon, delta);
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
         "epsilon = " + std::to_string(epsilon), "epsilon is a privacy loss: a finite number such as 0.1, 1 or 10.");
  // delta depends on sigma / Delta only; the ratio is refused where it is not a positive
  // finite number (the extremes of double range) rather than rounded to delta = 0.
  const double s = sigma / sensitivity;
  if (!(s > 0) || !std::isfinite(s))
    fail(ErrorKind::InvalidParameter, "sigma / sensitivity is not a positive finite number",
         "sigma = " + show(sigma) + ", sensitivity = " + show(sensitivity));
  const double log_delta = log_analytic_delta_unit(s, epsilon);
  if (std::isnan(log_delta))
    fail(ErrorKind::InvalidParameter, "the Gaussian privacy profile is not representable for these parameters",
         "sigma / sensitivity = " + show(s) + ", epsilon = " + show(epsilon));
  return std::exp(log_delta);
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
      // ln(1.25/delta) as ln 1.25 - ln delta: 1.25/delta overflows for a subnormal delta.
      return finite_sigma(sensitivity * std::sqrt(2 * (std::log(1.25) - std::log(delta))) / epsilon, sensitivity,
                          epsilon, delta);
    case GaussianCalibration::Amp: {
      // Iyengar et al. (2019), Lemma III.1 (ln(1/delta) as -ln delta, as above).
      const double sigma =
          finite_sigma(sensitivity * (1 + std::sqrt(-2 * std::log(delta))) / epsilon, sensitivity, epsilon, delta);
      // The lemma is stated for every epsilon but does not hold for large ones. What its proof
      // gives, and what AMP's Lemma IV.1 uses (a density ratio <= e^epsilon with probability
      // >= 1 - delta), is the tail bound P(privacy loss > epsilon) <= delta, where the loss is
      // N(mu, 2 mu), mu = Delta^2 / (2 sigma^2): P = Phi(Delta/(2 sigma) - epsilon sigma/Delta),
      // the first term of Balle & Wang's Theorem 8 (so it also bounds their exact delta). With
      // this sigma it exceeds delta above epsilon ~11.7 at delta = 0.1, ~17.8 at 1e-5, ~23.6
      // at 1e-12 (so the sigma actually used is checked, and refused; docs/accounting.md).
      const double log_tail = log_gaussian_loss_tail(sigma / sensitivity, epsilon);
      // The same margin as analytic_sigma's target (1e-13 in ln delta): the tail is computed to a
      // few ulps, and a value at the boundary must not pass by rounding.
      const double log_delta = std::log(delta);
      if (!(log_tail <= log_delta - 1e-13 * (1 - log_delta)))
        fail(ErrorKind::InvalidParameter,
             "the Gaussian calibration of Lemma III.1 (Iyengar et al. 2019) does not give (epsilon, delta)-DP here",
             "sigma = " + show(sigma) + " for sensitivity " + show(sensitivity) +
                 ": the privacy loss exceeds epsilon = " + show(epsilon) + " with probability " +
                 show(std::exp(log_tail)) + " > delta = " + show(delta) + " (the lemma's tail bound fails).",
             "Use a smaller epsilon, or options.gaussian_calibration = 'analytic' where the algorithm offers it "
             "(exact for every epsilon).");
      return sigma;
    }
    case GaussianCalibration::Analytic:
      return analytic_sigma(sensitivity, epsilon, delta);
  }
  fail(ErrorKind::Internal, "invalid GaussianCalibration value");
}

}  // namespace dptrain::privacy
