// Independent reference computations of the sampled Gaussian's RDP for the tests: the
// binomial sum of Mironov, Talwar & Zhang (2019, Section 3.2) summed DIRECTLY (no log
// space, no cancelled k = 0, 1 terms, no long-double log table): in 50-digit arithmetic
// (Boost.Multiprecision), and in long double for whole grids.
#pragma once

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <limits>
#include <vector>

namespace dptrain::privacy::reference {

using Mp = boost::multiprecision::cpp_bin_float_50;

// A_alpha = sum_{k=0}^{alpha} C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 sigma^2)), 50 digits.
inline Mp binomial_sum_mp(double q, double sigma, long alpha) {
  const Mp mq(q), one_minus_q = 1 - mq, two_var = 2 * Mp(sigma) * Mp(sigma);
  Mp weight = pow(one_minus_q, alpha);  // C(alpha, 0) (1-q)^alpha q^0
  Mp sum = weight;
  const Mp ratio = mq / one_minus_q;
  for (long k = 1; k <= alpha; ++k) {
    weight *= Mp(alpha - k + 1) / Mp(k) * ratio;
    sum += weight * exp(Mp(k) * Mp(k - 1) / two_var);
  }
  return sum;
}

// RDP(alpha) = ln(A_alpha) / (alpha - 1) in 50 digits, rounded to double.
inline double rdp_mp(double q, double sigma, long alpha) {
  return static_cast<double>(log(binomial_sum_mp(q, sigma, alpha)) / Mp(alpha - 1));
}

// The same sum in long double, directly; +inf when it overflows (such orders never give
// the minimum epsilon).
inline long double rdp_long_double(double q, double sigma, long alpha) {
  const long double lq = q, two_var = 2.0L * sigma * sigma;
  long double weight = std::exp(static_cast<long double>(alpha) * std::log1p(-lq));
  long double sum = weight;
  const long double ratio = lq / (1 - lq);
  for (long k = 1; k <= alpha; ++k) {
    weight *= static_cast<long double>(alpha - k + 1) / static_cast<long double>(k) * ratio;
    const long double x = static_cast<long double>(k) * static_cast<long double>(k - 1) / two_var;
    if (x > 11000) return std::numeric_limits<long double>::infinity();
    sum += weight * std::exp(x);
  }
  return std::log(sum) / static_cast<long double>(alpha - 1);
}

// min over integer orders of the conversion of steps * RDP, in long double. improved: Balle
// et al. 2020, Thm 21; classic: Mironov 2017, Prop. 3.
inline double epsilon_long_double(double q, double sigma, long long steps, double delta,
                                  const std::vector<double>& orders, bool improved) {
  long double best = std::numeric_limits<long double>::infinity();
  for (double order : orders) {
    const long alpha = static_cast<long>(order);
    const long double a = alpha;
    const long double rdp = static_cast<long double>(steps) * rdp_long_double(q, sigma, alpha);
    const long double log_delta = std::log(static_cast<long double>(delta));
    const long double eps = improved ? rdp + std::log1p(-1 / a) - (log_delta + std::log(a)) / (a - 1)
                                     : rdp - log_delta / (a - 1);
    if (eps < best) best = eps;
  }
  return static_cast<double>(best < 0 ? 0 : best);
}

}  // namespace dptrain::privacy::reference
