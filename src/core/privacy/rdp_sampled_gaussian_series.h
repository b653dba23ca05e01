// The two series behind the RDP of the Poisson-subsampled Gaussian (Mironov, Talwar &
// Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian Mechanism"), for
// 0 < q < 1 and sigma > 0. rdp_sampled_gaussian.h turns them into RDP and epsilon.
#pragma once

#include <cstddef>
#include <vector>

namespace dptrain::privacy {

// ln(A_alpha - 1) at integer orders alpha >= 2 (MTZ Section 3.2):
//   A_alpha - 1 = sum_{k=2}^{alpha} C(alpha,k) (1-q)^(alpha-k) q^k expm1((k^2 - k) / (2 sigma^2)),
// the k = 0, 1 terms of sum_k C(alpha,k) (1-q)^(alpha-k) q^k e^{(k^2-k)/(2 sigma^2)} = A_alpha
// having cancelled the 1 exactly (so q = 1e-6 keeps full relative precision). Every term is
// positive; the sum is a log-sum-exp over k. The logarithms of the terms are formed in
// long double (64-bit mantissa) from a table of ln k!, so that at order 20000, where
// ln C(alpha, k) and k ln q reach 1e5, their rounding stays near 1e-13 absolute instead of
// 1e-11. One object serves every order of a grid at the same (q, sigma): ln expm1(x_k), the
// only transcendental part, is tabulated once (for the k where it is not x_k itself).
class IntegerOrderSeries {
 public:
  IntegerOrderSeries(double q, double sigma);
  double log_a_minus_one(long alpha);

 private:
  void tabulate_log_expm1(std::size_t alpha);

  long double log_1mq_, log_odds_, inv_two_var_;  // ln(1-q), ln(q/(1-q)), 1/(2 sigma^2)
  std::vector<long double> log_expm1_;  // index k: ln expm1((k^2-k)/(2 sigma^2)) while that is <= 45
  bool linear_from_ = false;            // the table has reached the first k with x_k > 45
  std::vector<double> terms_;           // scratch, reused between orders
};

// ln A_alpha at a fractional order alpha > 1 (MTZ Section 3.3): the signed two-sided series
// split at z0 = sigma^2 ln(1/q - 1) + 1/2, positive and negative parts summed separately in
// log space and truncated with an alternating-series tail bound plus a rounding margin (an
// upper bound).
double log_a_fractional(double q, double sigma, double alpha);

}  // namespace dptrain::privacy
