#include "core/privacy/rdp_sampled_gaussian.h"

#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/privacy/messages.h"
#include "core/privacy/log_math.h"

namespace dptrain::privacy {
namespace {

using log_math::kNegInf;
using log_math::log_add;

void require_rate(double q) {
  if (!(q > 0 && q <= 1))
    fail(ErrorKind::InvalidParameter, "the sampling rate q must be in (0, 1]", "q = " + show(q),
         "q is the expected batch size divided by the number of rows");
}

void require_sigma(double sigma) {
  if (!std::isfinite(sigma) || sigma <= 0)
    fail(ErrorKind::InvalidParameter, "the noise multiplier sigma must be a finite number > 0",
         "sigma = " + show(sigma));
}

void require_steps(std::int64_t steps) {
  if (steps < 1)
    fail(ErrorKind::InvalidParameter, "steps must be >= 1", "steps = " + std::to_string(steps));
}

void require_delta(double delta) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)", "delta = " + show(delta));
}

// ln(A_alpha - 1) for integer alpha >= 2 and q in (0, 1): every term of
// sum_{k>=2} C(alpha,k) (1-q)^(alpha-k) q^k expm1((k^2-k)/(2 sigma^2)) is positive.
double log_a_minus_one_integer(double q, double sigma, long alpha) {
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  const double inv_two_var = 1 / (2 * sigma * sigma);
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(alpha));
  double log_binom = std::log(static_cast<double>(alpha));  // ln C(alpha, 1)
  double max_term = kNegInf;
  for (long k = 2; k <= alpha; ++k) {
    log_binom += std::log(static_cast<double>(alpha - k + 1)) - std::log(static_cast<double>(k));
    const double kd = static_cast<double>(k);
    const double term = log_binom + kd * log_q + static_cast<double>(alpha - k) * log_1mq +
                        log_math::log_expm1((kd * kd - kd) * inv_two_var);
    terms.push_back(term);
    if (term > max_term) max_term = term;
  }
  double sum = 0;
  for (double term : terms) sum += std::exp(term - max_term);
  return max_term + std::log(sum);
}

// ln A_alpha for fractional alpha > 1 and q in (0, 1): MTZ Section 3.3. With
// L(z) = e^{(2z-1)/(2 sigma^2)} and z0 where q L(z0) = 1 - q, expand ((1-q) + q L)^alpha as a
// binomial series in q L / (1-q) for z <= z0 and in (1-q) / (q L) for z > z0:
//   A = sum_i C(alpha,i) [ (1-q)^(alpha-i) q^i e^{(i^2-i)/(2s^2)} P(N(i, s^2) <= z0)
//                        + q^(alpha-i) (1-q)^i e^{(j^2-j)/(2s^2)} P(N(j, s^2) > z0) ],  j = alpha - i.
// C(alpha, i) alternates in sign once i > alpha, so positive and negative parts are summed
// separately in log space and subtracted at the end (never absolute values).
double log_a_fractional(double q, double sigma, double alpha) {
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
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

bool is_integer(double x) { return std::floor(x) == x; }

// (orders, curve) after the adjacency conversion.
RdpEpsilon epsilon_of_curve(const std::vector<double>& orders, const std::vector<double>& curve, double delta,
                            const RdpOptions& options) {
  if (options.adjacency == Adjacency::ReplaceOne) {
    const auto converted = rdp_add_remove_to_replace_one(orders, curve);
    return rdp_to_dp(converted.first, converted.second, delta, options.conversion);
  }
  return rdp_to_dp(orders, curve, delta, options.conversion);
}

}  // namespace

double sampled_gaussian_rdp(double q, double noise_multiplier, double order) {
  require_rate(q);
  require_sigma(noise_multiplier);
  validate_rdp_orders({order});
  const double sigma = noise_multiplier;
  if (q == 1) return order / (2 * sigma * sigma);  // the plain Gaussian mechanism
  if (is_integer(order)) {
    return log_math::log1p_exp(log_a_minus_one_integer(q, sigma, static_cast<long>(order))) / (order - 1);
  }
  const double log_a = log_a_fractional(q, sigma, order);
  return (log_a > 0 ? log_a : 0) / (order - 1);  // A >= 1 exactly; clamp rounding below it
}

std::vector<double> sampled_gaussian_rdp_curve(double q, double noise_multiplier, std::int64_t steps,
                                               const std::vector<double>& orders) {
  require_steps(steps);
  validate_rdp_orders(orders);
  std::vector<double> curve;
  curve.reserve(orders.size());
  for (double order : orders)
    curve.push_back(static_cast<double>(steps) * sampled_gaussian_rdp(q, noise_multiplier, order));
  return curve;
}

RdpEpsilon sampled_gaussian_epsilon(double q, double noise_multiplier, std::int64_t steps, double delta,
                                    const RdpOptions& options) {
  require_delta(delta);
  const auto curve = sampled_gaussian_rdp_curve(q, noise_multiplier, steps, options.orders);
  return epsilon_of_curve(options.orders, curve, delta, options);
}

RdpNoise sampled_gaussian_noise_multiplier(double q, std::int64_t steps, double target_epsilon, double delta,
                                           const RdpOptions& options) {
  require_rate(q);
  require_steps(steps);
  require_delta(delta);
  validate_rdp_orders(options.orders);
  if (!std::isfinite(target_epsilon) || target_epsilon <= 0)
    fail(ErrorKind::InvalidParameter, "the target epsilon must be a finite number > 0",
         "epsilon = " + show(target_epsilon));
  // As sigma -> infinity the RDP vanishes and epsilon tends to the conversion's floor.
  const std::vector<double> zero(options.orders.size(), 0.0);
  const double floor = epsilon_of_curve(options.orders, zero, delta, options).epsilon;
  if (target_epsilon <= floor)
    fail(ErrorKind::InvalidParameter, "the target epsilon is unreachable with these RDP orders",
         "even infinite noise gives epsilon >= " + show(floor) + " at delta = " + show(delta),
         "raise epsilon or delta, or add larger orders");

  auto evaluate = [&](double sigma) { return sampled_gaussian_epsilon(q, sigma, steps, delta, options); };
  // Bracket: eps(lo) > target >= eps(hi).
  double lo = 1, hi = 1;
  RdpEpsilon at_hi = evaluate(hi);
  if (at_hi.epsilon <= target_epsilon) {
    for (int i = 0;; ++i) {
      lo = hi / 2;
      if (evaluate(lo).epsilon > target_epsilon) break;
      if (i > 60) fail(ErrorKind::Internal, "rdp-sigma: no insufficient noise multiplier found");
      hi = lo;
    }
    at_hi = evaluate(hi);
  } else {
    for (int i = 0;; ++i) {
      lo = hi;
      hi *= 2;
      at_hi = evaluate(hi);
      if (at_hi.epsilon <= target_epsilon) break;
      if (i > 60) fail(ErrorKind::Internal, "rdp-sigma: no sufficient noise multiplier found");
    }
  }
  for (int i = 0; i < 200 && hi / lo - 1 > 1e-10; ++i) {
    const double mid = std::sqrt(lo * hi);
    if (mid <= lo || mid >= hi) break;
    const RdpEpsilon at_mid = evaluate(mid);
    if (at_mid.epsilon <= target_epsilon) {
      hi = mid;
      at_hi = at_mid;
    } else {
      lo = mid;
    }
  }
  return {hi, at_hi.epsilon, at_hi.optimal_order};
}

}  // namespace dptrain::privacy
