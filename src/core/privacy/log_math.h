// Log-space arithmetic and normal-tail functions shared by the accountants.
// Everything an accountant sums (binomial series, mixture moments) can be
// astronomically large or small; these helpers keep it finite.
#pragma once

namespace dptrain::privacy::log_math {

inline constexpr double kNegInf = -__builtin_huge_val();

// ln(e^a + e^b), exact for -inf operands.
double log_add(double a, double b);
// ln(e^a - e^b) for a >= b (returns -inf for a == b; throws Error(Internal) for a < b).
double log_sub(double a, double b);
// ln(e^x - 1) for x > 0, without overflow for large x or cancellation for small x.
double log_expm1(double x);
// ln(1 + e^x), without overflow.
double log1p_exp(double x);
// ln erfc(x) for every finite x: no underflow in the right tail (x up to ~1e150).
double log_erfc(double x);

}  // namespace dptrain::privacy::log_math
