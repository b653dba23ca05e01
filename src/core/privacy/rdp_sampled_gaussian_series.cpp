#include "core/privacy/rdp_sampled_gaussian_series.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/privacy/log_math.h"
#include "core/privacy/messages.h"
#include "core/privacy/rdp.h"

namespace dptrain::privacy {
namespace {

using log_math::kNegInf;
using log_math::log_add;

// Above this x, ln expm1(x) = x + ln(1 - e^-x) equals x to long-double rounding
// (e^-45 = 2.9e-20 is below half an ulp of 45).
constexpr long double kLinearAbove = 45;
// Terms this far below the largest one add less than alpha e^-60 < 1e-21 relative: skipped.
constexpr double kNegligible = 60;

// ln(i!) for i = 0..kMaxRdpOrder in long double, built once with lgamma (each entry
// accurate to an ulp; no accumulated rounding): ln C(alpha, k) = ln alpha! - ln k! - ln (alpha-k)!
// is then three loads and no loop-carried dependency.
const std::vector<long double>& log_factorials() {
  static const std::vector<long double> table = [] {
    std::vector<long double> t(static_cast<std::size_t>(kMaxRdpOrder) + 1, 0.0L);
    for (std::size_t i = 2; i < t.size(); ++i) t[i] = std::lgamma(static_cast<long double>(i) + 1);
    return t;
  }();
  return table;
}

}  // namespace

IntegerOrderSeries::IntegerOrderSeries(double q, double sigma)
    : log_1mq_(std::log1p(-static_cast<long double>(q))),
      log_odds_(std::log(static_cast<long double>(q)) - std::log1p(-static_cast<long double>(q))),
      inv_two_var_(1.0L / (2.0L * static_cast<long double>(sigma) * static_cast<long double>(sigma))),
      log_expm1_(2, 0.0L) {}

void IntegerOrderSeries::tabulate_log_expm1(std::size_t alpha) {
  // ln expm1(x_k) for k = 2, 3, ... up to alpha, while x_k <= kLinearAbove.
  while (!linear_from_ && log_expm1_.size() <= alpha) {
    const long double kd = static_cast<long double>(log_expm1_.size());
    const long double x = (kd * kd - kd) * inv_two_var_;
    if (x > kLinearAbove) {
      linear_from_ = true;
      break;
    }
    log_expm1_.push_back(std::log(std::expm1(x)));
  }
}

double IntegerOrderSeries::log_a_minus_one(long alpha) {
  if (alpha < 2 || alpha > static_cast<long>(kMaxRdpOrder))
    fail(ErrorKind::Internal, "integer RDP order out of range", "order = " + std::to_string(alpha));
  const long double* lf = log_factorials().data();
  const std::size_t a = static_cast<std::size_t>(alpha);
  tabulate_log_expm1(a);
  terms_.resize(a - 1);
  double* out = terms_.data() - 2;  // out[k], k = 2..alpha
  // term_k = ln C(alpha, k) + alpha ln(1-q) + k ln(q/(1-q)) + ln expm1(x_k).
  const long double base = lf[a] + static_cast<long double>(alpha) * log_1mq_;
  const std::size_t curved_end = std::min(a + 1, log_expm1_.size());
  double max_term = kNegInf;
  std::size_t k = 2;
  for (; k < curved_end; ++k) {
    const long double kd = static_cast<long double>(k);
    out[k] = static_cast<double>(base - lf[k] - lf[a - k] + kd * log_odds_ + log_expm1_[k]);
    max_term = std::max(max_term, out[k]);
  }
  for (; k <= a; ++k) {  // ln expm1(x) = x to long-double rounding here
    const long double kd = static_cast<long double>(k);
    out[k] = static_cast<double>(base - lf[k] - lf[a - k] + kd * log_odds_ + (kd * kd - kd) * inv_two_var_);
    max_term = std::max(max_term, out[k]);
  }
  // A term beyond double range (sigma ~ 1e-160 and below): A - 1 is infinite, and so is the RDP
  // (inf - inf below would be NaN).
  if (max_term == std::numeric_limits<double>::infinity()) return max_term;
  // ">=": where max_term is above 2^59 (sigma < 1.4e-5 at order 20000, any order at sigma =
  // 1e-10) max_term - 60 rounds to max_term itself, and a strict ">" dropped every term: ln 0 =
  // -inf, i.e. RDP 0 and the order floor as epsilon for a mechanism with almost no noise.
  // The largest term always counts (sum >= 1).
  double sum = 0;
  for (double term : terms_)
    if (term >= max_term - kNegligible) sum += std::exp(term - max_term);
  return max_term + std::log(sum);
}

// C(alpha, i) alternates in sign once i > alpha, so positive and negative parts are summed
// separately in log space and subtracted at the end (never absolute values). With
// L(z) = e^{(2z-1)/(2 sigma^2)} and z0 where q L(z0) = 1 - q, ((1-q) + q L)^alpha is expanded
// as a binomial series in q L / (1-q) for z <= z0 and in (1-q) / (q L) for z > z0:
//   A = sum_i C(alpha,i) [ (1-q)^(alpha-i) q^i e^{(i^2-i)/(2s^2)} P(N(i, s^2) <= z0)
//                        + q^(alpha-i) (1-q)^i e^{(j^2-j)/(2s^2)} P(N(j, s^2) > z0) ],  j = alpha - i.
double log_a_fractional(double q, double sigma, double alpha) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // sigma^2 beyond double range (sigma > ~1.3e154): z0 is infinite or NaN and the series never
  // ended (XX000). The RDP falls as sigma grows (more noise is a post-processing of less), so
  // the value at sigma = 1e150 is an upper bound.
  if (sigma > 1e150) sigma = 1e150;
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  // 1/(2 sigma^2) beyond double range (sigma < ~1e-154): A is infinite, and so is the RDP, as
  // at integer orders (log_a_minus_one); the series had NaN terms and never ended.
  if (!std::isfinite(1 / (2 * sigma * sigma))) return kInf;
  const double inv_two_var = 1 / (2 * sigma * sigma);
  const double z0 = sigma * sigma * (log_1mq - log_q) + 0.5;
  const double scale = 1 / (std::sqrt(2.0) * sigma);
  const double log_half = -std::log(2.0);
  double log_pos = kNegInf, log_neg = kNegInf;
  double log_abs_binom = 0;  // ln |C(alpha, 0)|
  bool negative = false;
  double previous = std::numeric_limits<double>::infinity();
  constexpr long kMaxTerms = 5000000;
  for (long i = 0; i < kMaxTerms; ++i) {
    if (i > 0) {
      const double factor = (alpha - static_cast<double>(i) + 1) / static_cast<double>(i);
      log_abs_binom += std::log(std::abs(factor));
      if (factor < 0) negative = !negative;
    }
    const double id = static_cast<double>(i), j = alpha - id;
    const double log_s0 = log_abs_binom + id * log_q + j * log_1mq + (id * id - id) * inv_two_var + log_half +
                          log_math::log_erfc((id - z0) * scale);
    const double log_s1 = log_abs_binom + j * log_q + id * log_1mq + (j * j - j) * inv_two_var + log_half +
                          log_math::log_erfc((z0 - j) * scale);
    const double log_term = log_add(log_s0, log_s1);
    // A term beyond double range (tiny sigma at a high order): A is infinite.
    if (log_term == kInf) return kInf;
    if (negative) {
      log_neg = log_add(log_neg, log_term);
    } else {
      log_pos = log_add(log_pos, log_term);
    }
    // Past alpha the terms alternate; once they decrease and are below rounding level, the
    // remainder of the alternating series is at most the next term, itself below this one.
    // Return an upper bound: the partial sum plus that tail bound plus a margin for the
    // rounding of the i + 1 log-space additions (relative 2^-52 each, on P + N).
    if (id > alpha + 1 && log_term < previous && log_term < log_pos - 36) {
      const double log_rounding = log_add(log_pos, log_neg) + std::log((id + 1) * 4 * 0x1p-52);
      return log_math::log_sub(log_add(log_add(log_pos, log_term), log_rounding), log_neg);
    }
    previous = log_term;
  }
  fail(ErrorKind::Internal, "RDP series of the sampled Gaussian did not converge",
       "q = " + show(q) + ", sigma = " + show(sigma) + ", order = " + show(alpha));
}

}  // namespace dptrain::privacy
