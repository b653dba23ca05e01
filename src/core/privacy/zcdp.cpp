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

// The smallest f(ln t) over ln t in [center - 30, center + 10]: a scan of 400 points, then a
// golden-section refinement within one grid step of the best (f need not be unimodal
// globally; every value it returns was attained).
template <class F>
double minimum_over_log_t(F f, double center) {
  const double lo = center - 30, hi = center + 10;
  const int grid = 400;
  double best = f(center), best_log_t = center;
  for (int i = 0; i <= grid; ++i) {
    const double log_t = lo + (hi - lo) * i / grid;
    const double value = f(log_t);
    if (value < best) best = value, best_log_t = log_t;
  }
  const double step = (hi - lo) / grid;
  double a = best_log_t - step, b = best_log_t + step;
  const double inv_phi = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 100 && b - a > 1e-12; ++i) {
    const double c = b - inv_phi * (b - a), d = a + inv_phi * (b - a);
    const double fc = f(c), fd = f(d);
    best = std::min(best, std::min(fc, fd));
    if (fc < fd) {
      b = d;  // the minimum lies in [a, d]
    } else {
      a = c;  // the minimum lies in [c, b]
    }
  }
  return best;
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

double zcdp_from_bounded_range(double epsilon) {
  require_positive(epsilon, "epsilon");
  return epsilon * epsilon / 8;
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

  // CKS: any alpha > 1 gives a valid bound, so the search can only err towards a slightly
  // larger (still valid) epsilon. The Bun-Steinke optimum t* is among the candidates; at any
  // alpha, CKS equals the classic conversion alpha rho + L/t plus ln(1 - 1/alpha) - ln(alpha)/t
  // <= 0, so the result never exceeds Bun-Steinke.
  const double t_star = std::sqrt(log_inv_delta / rho);
  double best = std::min(cks_epsilon_at(t_star, rho, log_inv_delta),
                         minimum_over_log_t([&](double log_t) { return cks_epsilon_at(std::exp(log_t), rho, log_inv_delta); },
                                            std::log(t_star)));
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

double dp_to_zcdp_rho_cks(double epsilon, double delta) {
  // CKS(rho) <= epsilon iff some order t gives cks_epsilon_at(t, rho, L) <= epsilon, i.e.
  // rho <= (epsilon - cks_epsilon_at(t, 0, L)) / (1 + t): the largest rho is the maximum of
  // that over t, and every t's value is a feasible rho. Bun-Steinke's rho is feasible too
  // (CKS never exceeds it), and its order sqrt(L / rho) is where the search is centred.
  const double bun_steinke = dp_to_zcdp_rho(epsilon, delta);
  const double log_inv_delta = -std::log(delta);
  const auto minus_rho_at = [&](double log_t) {
    const double t = std::exp(log_t);
    return -(epsilon - cks_epsilon_at(t, 0, log_inv_delta)) / (1 + t);
  };
  const double best = -minimum_over_log_t(minus_rho_at, std::log(std::sqrt(log_inv_delta / bun_steinke)));
  // A relative 1e-12 below the maximum keeps the rounding on the feasible side, for the
  // Bun-Steinke rho too: it wins when epsilon > ~1e15, and its rounding left it an ulp above
  // the largest feasible rho (1e50, 1e-5 gave 1.0000000000000003e50).
  return std::max(bun_steinke, best) * (1 - 1e-12);
}

}  // namespace dptrain::privacy
