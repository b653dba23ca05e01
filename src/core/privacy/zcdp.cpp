#include "core/privacy/zcdp.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/privacy/messages.h"

namespace dptrain::privacy {
namespace {

void require_positive(double value, const char* name) {
  if (!std::isfinite(value) || value <= 0)
    fail(ErrorKind::InvalidParameter, std::string(name) + " must be a finite number > 0",
         std::string(name) + " = " + show(value), "Pass a positive finite number.");
}

void require_rho(double rho) {
  if (!std::isfinite(rho) || rho < 0)
    fail(ErrorKind::InvalidParameter, "rho must be a finite number >= 0", "rho = " + show(rho),
         "rho is a zCDP budget: 0 or more (epsilon-DP is epsilon^2/2-zCDP).");
}

void require_delta(double delta) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)", "delta = " + show(delta), "delta is a probability below 1, typically far below 1/n for n rows (e.g. 1e-5).");
}

// CKS Corollary 13 at one order alpha > 1, written with t = alpha - 1 > 0:
//   eps(alpha) = alpha rho + (L + t ln t - alpha ln alpha) / t,   L = ln(1/delta).
// This is the improved RDP conversion applied to RDP(alpha) = alpha rho.
// t ln t - alpha ln alpha = -(t ln(1 + 1/t) + ln(1 + t)), written without the difference:
// at small rho the optimum t ~ sqrt(L / rho) is huge (2.6e16 at rho = 1e-30, delta = 1e-300),
// t ln t and alpha ln alpha agree to all but a few of their digits, and the rounding of the
// difference divided by t was 10% of epsilon, in both directions; the minimum over t then picked
// an order whose rounding error was negative (5.1e-14 reported 4.7e-14: less than the bound).
double cks_epsilon_at(double t, double rho, double log_inv_delta) {
  const double alpha = 1 + t;
  return alpha * rho + (log_inv_delta - t * std::log1p(1 / t) - std::log1p(t)) / t;
}

}  // namespace

ZcdpConversion parse_zcdp_conversion(const std::string& name) {
  if (name == "cks") return ZcdpConversion::Cks;
  if (name == "bun-steinke") return ZcdpConversion::BunSteinke;
  fail(ErrorKind::InvalidParameter, "unknown zCDP conversion \"" + name + "\"", {},
       "use cks (Canonne-Kamath-Steinke 2020, tighter) or bun-steinke (Bun-Steinke 2016)");
}

std::string zcdp_conversion_name(ZcdpConversion conversion) {
  switch (conversion) {
    case ZcdpConversion::Cks: return "cks";
    case ZcdpConversion::BunSteinke: return "bun-steinke";
  }
  fail(ErrorKind::Internal, "invalid ZcdpConversion value");
}

double zcdp_gaussian_rho(double sensitivity, double sigma) {
  require_positive(sensitivity, "sensitivity");
  require_positive(sigma, "sigma");
  const double ratio = sensitivity / sigma;
  return ratio * ratio / 2;
}

double zcdp_gaussian_sigma(double sensitivity, double rho) {
  require_positive(sensitivity, "sensitivity");
  require_positive(rho, "rho");
  return sensitivity / std::sqrt(2 * rho);
}

double zcdp_from_pure_dp(double epsilon) {
  require_positive(epsilon, "epsilon");
  return epsilon * epsilon / 2;
}

double zcdp_compose(const std::vector<double>& rhos) {
  double total = 0;
  for (double rho : rhos) {
    require_rho(rho);
    total += rho;
  }
  return total;
}

double zcdp_to_dp_epsilon(double rho, double delta, ZcdpConversion conversion) {
  require_rho(rho);
  require_delta(delta);
  if (rho == 0) return 0;
  const double log_inv_delta = -std::log(delta);
  // Bun-Steinke; also the optimum of the classic RDP conversion alpha rho + L/(alpha-1),
  // attained at alpha - 1 = sqrt(L / rho).
  const double bun_steinke = rho + 2 * std::sqrt(rho * log_inv_delta);
  if (conversion == ZcdpConversion::BunSteinke) return bun_steinke;

  // CKS: any alpha > 1 gives a valid bound, so a global scan over ln t followed by a
  // golden-section refinement can only err towards a slightly larger (still valid) epsilon.
  // The Bun-Steinke optimum t* is among the candidates; at any alpha, CKS equals the classic
  // conversion alpha rho + L/t plus ln(1 - 1/alpha) - ln(alpha)/t <= 0, so the result never
  // exceeds Bun-Steinke.
  const double t_star = std::sqrt(log_inv_delta / rho);
  double best_log_t = std::log(t_star);
  double best = cks_epsilon_at(t_star, rho, log_inv_delta);
  const double lo = std::log(t_star) - 30, hi = std::log(t_star) + 10;
  const int grid = 400;
  for (int i = 0; i <= grid; ++i) {
    const double log_t = lo + (hi - lo) * i / grid;
    const double eps = cks_epsilon_at(std::exp(log_t), rho, log_inv_delta);
    if (eps < best) best = eps, best_log_t = log_t;
  }
  // Refine around the best grid point (one grid step on either side).
  const double step = (hi - lo) / grid;
  double a = best_log_t - step, b = best_log_t + step;
  const double inv_phi = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 100 && b - a > 1e-12; ++i) {
    const double c = b - inv_phi * (b - a), d = a + inv_phi * (b - a);
    const double fc = cks_epsilon_at(std::exp(c), rho, log_inv_delta);
    const double fd = cks_epsilon_at(std::exp(d), rho, log_inv_delta);
    best = std::min(best, std::min(fc, fd));
    if (fc < fd) {
      b = d;  // the minimum lies in [a, d]
    } else {
      a = c;  // the minimum lies in [c, b]
    }
  }
  best = std::min(best, bun_steinke);
  return best > 0 ? best : 0;
}

double dp_to_zcdp_rho(double epsilon, double delta) {
  require_positive(epsilon, "epsilon");
  require_delta(delta);
  const double log_inv_delta = -std::log(delta);
  // (sqrt(L + eps) - sqrt(L))^2 = (eps / (sqrt(L + eps) + sqrt(L)))^2, free of cancellation.
  const double root = epsilon / (std::sqrt(log_inv_delta + epsilon) + std::sqrt(log_inv_delta));
  return root * root;
}

}  // namespace dptrain::privacy
