// Small statistics helpers for the sampler tests: the one-sample
// Kolmogorov-Smirnov test, z-scores of sample moments, fixed keys, and the
// line that prints a p-value.
//
// Why fixed seeds and p > 1e-3 are sound thresholds: every test draws from a
// RandomSource::seeded(...) or from_key(fixed_key(...), ...) stream, so its
// outcome is deterministic. For a
// correct sampler and a continuous target distribution the KS p-value of a
// fresh seed is (asymptotically) uniform on (0, 1), so a seed makes a correct
// sampler fail with probability 1e-3 per KS check; over the ~30 KS checks of
// the suite that is at most 3% by the union bound, once, when the seeds are
// chosen -- after that the outcome never changes. A z-score bound of 5 fails
// a correct sampler with probability 5.7e-7 per check. Meanwhile the tests
// keep their power: with n = 200000 the KS test at p = 1e-3 detects any CDF
// error larger than about 1.95 / sqrt(n) ~ 0.0044 anywhere on the line.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "core/privacy/random_source.h"

namespace dptrain::test {

// A fixed 256-bit key per small integer, for tests that read the
// per-update streams RandomSource::from_key(key, nonce).
inline privacy::RandomSource::Key fixed_key(unsigned char v) {
  privacy::RandomSource::Key k{};
  for (int i = 0; i < 32; ++i) k[i] = static_cast<unsigned char>(v * 31 + i);
  return k;
}

// Prints a test's p-value (so that a run documents itself) and returns it.
inline double report(const std::string& what, double p) {
  std::printf("[ KS ] %-60s p = %.4g\n", what.c_str(), p);
  return p;
}

// D_n = sup_x |F_n(x) - F(x)| for the sample (sorted in place).
inline double ks_statistic(std::vector<double>& sample, const std::function<double(double)>& cdf) {
  std::sort(sample.begin(), sample.end());
  const double n = static_cast<double>(sample.size());
  double d = 0.0;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const double f = cdf(sample[i]);
    d = std::max({d, (static_cast<double>(i) + 1.0) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

// Q_KS(lambda) = P(K > lambda) for the Kolmogorov distribution:
// 2 sum_{j>=1} (-1)^{j-1} exp(-2 j^2 lambda^2), or for small lambda the
// equivalent theta-function form 1 - sqrt(2 pi)/lambda sum exp(-(2j-1)^2 pi^2 / (8 lambda^2)).
inline double kolmogorov_survival(double lambda) {
  if (lambda <= 0) return 1.0;
  constexpr double kPi = 3.14159265358979323846;
  if (lambda < 1.18) {
    double s = 0.0;
    for (int j = 1; j <= 20; ++j) {
      const double k = 2.0 * j - 1.0;
      s += std::exp(-k * k * kPi * kPi / (8.0 * lambda * lambda));
    }
    return std::clamp(1.0 - std::sqrt(2.0 * kPi) / lambda * s, 0.0, 1.0);
  }
  double s = 0.0;
  for (int j = 1; j <= 100; ++j) {
    const double term = std::exp(-2.0 * j * j * lambda * lambda);
    s += (j % 2 == 1 ? term : -term);
    if (term < 1e-300) break;
  }
  return std::clamp(2.0 * s, 0.0, 1.0);
}

// Asymptotic p-value of D_n with Stephens' (1970) small-sample correction
// lambda = (sqrt(n) + 0.12 + 0.11/sqrt(n)) D_n; accurate for n >= 35, and
// every test here uses n >= 10^4.
inline double ks_pvalue(double d, std::size_t n) {
  const double rn = std::sqrt(static_cast<double>(n));
  return kolmogorov_survival((rn + 0.12 + 0.11 / rn) * d);
}

inline double ks_test(std::vector<double> sample, const std::function<double(double)>& cdf) {
  const double d = ks_statistic(sample, cdf);
  return ks_pvalue(d, sample.size());
}

inline double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

inline double variance(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

// z-score of the sample mean against the true mean mu and true sd sigma.
inline double mean_z(const std::vector<double>& v, double mu, double sigma) {
  return (mean(v) - mu) / (sigma / std::sqrt(static_cast<double>(v.size())));
}

// z-score of the sample variance against the true variance sigma2, using
// Var(s^2) ~ (mu4 - sigma2^2) / n with mu4 the true 4th central moment.
inline double variance_z(const std::vector<double>& v, double sigma2, double mu4) {
  const double n = static_cast<double>(v.size());
  return (variance(v) - sigma2) / std::sqrt((mu4 - sigma2 * sigma2) / n);
}

}  // namespace dptrain::test
