#include "core/privacy/samplers.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

void require_positive(double value, const char* what) {
  if (!(value > 0) || !std::isfinite(value))
    fail(ErrorKind::InvalidParameter, std::string(what) + " of a noise distribution must be positive and finite",
         "Got " + std::to_string(value) + ".");
}

// Marsaglia's polar method: (u, v) uniform in the unit disc by rejection,
// then u * f and v * f with f = sqrt(-2 ln s / s), s = u^2 + v^2, are two
// independent N(0, 1) values. The uniforms are on the grid k / 2^52 of
// (-1, 1); s = 0 (u = v = 0) is rejected along with s >= 1.
void polar_pair(RandomSource& rng, double& z1, double& z2) {
  for (;;) {
    const double u = 2.0 * rng.uniform_open01() - 1.0;
    const double v = 2.0 * rng.uniform_open01() - 1.0;
    const double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0) continue;
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    z1 = u * f;
    z2 = v * f;
    return;
  }
}

// Marsaglia & Tsang (2000), "A simple method for generating gamma
// variables", for shape a >= 1 and scale 1: with d = a - 1/3 and
// c = 1/sqrt(9d), draw x ~ N(0,1), v = (1 + c x)^3 (reject v <= 0), U ~ U(0,1);
// accept d v if U < 1 - 0.0331 x^4 (squeeze) or ln U < x^2/2 + d (1 - v + ln v).
// The method is exact (a rejection sampler); the squeeze only saves a log.
double gamma_shape_at_least_one(RandomSource& rng, double a) {
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  double spare = 0.0;
  bool has_spare = false;
  for (;;) {
    double x, v;
    do {
      if (has_spare) {
        x = spare;
        has_spare = false;
      } else {
        polar_pair(rng, x, spare);
        has_spare = true;
      }
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform_open01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

}  // namespace

double standard_normal(RandomSource& rng) {
  double z1, z2;
  polar_pair(rng, z1, z2);
  return z1;
}

void fill_standard_normal(RandomSource& rng, double* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) polar_pair(rng, out[i], out[i + 1]);
  if (i < n) out[i] = standard_normal(rng);
}

double exponential(RandomSource& rng, double scale) {
  require_positive(scale, "the scale");
  // Inversion: -ln U with U in (0, 1) on the grid k/2^53, so the value is
  // finite and positive (at most 53 ln 2 scales).
  return -scale * std::log(rng.uniform_open01());
}

double laplace(RandomSource& rng, double scale) {
  require_positive(scale, "the scale");
  // |X| ~ Exp(scale) and an independent fair sign.
  const bool negative = (rng.next_u64() & 1u) != 0;
  const double magnitude = -scale * std::log(rng.uniform_open01());
  return negative ? -magnitude : magnitude;
}

void fill_laplace(RandomSource& rng, double* out, std::size_t n, double scale) {
  require_positive(scale, "the scale");
  for (std::size_t i = 0; i < n; ++i) out[i] = laplace(rng, scale);
}

double gamma(RandomSource& rng, double shape, double scale) {
  require_positive(shape, "the shape");
  require_positive(scale, "the scale");
  if (shape >= 1.0) return scale * gamma_shape_at_least_one(rng, shape);
  // Shape < 1 (Marsaglia & Tsang, Section 6): if G ~ Gamma(a + 1) and
  // U ~ U(0, 1) independent, then G * U^(1/a) ~ Gamma(a). exp(ln U / a) may
  // underflow to 0 for tiny a, the correctly rounded value.
  const double g = gamma_shape_at_least_one(rng, shape + 1.0);
  return scale * g * std::exp(std::log(rng.uniform_open01()) / shape);
}

void uniform_direction(RandomSource& rng, double* out, std::size_t d) {
  if (d == 0) fail(ErrorKind::InvalidParameter, "a direction needs at least one dimension");
  // A standard Gaussian vector is rotation invariant, so g / ||g|| is
  // uniform on the sphere. ||g|| = 0 has probability ~2^-52 per coordinate
  // only when d = 1; redraw in that case.
  for (;;) {
    fill_standard_normal(rng, out, d);
    double sq = 0.0;
    for (std::size_t i = 0; i < d; ++i) sq += out[i] * out[i];
    if (sq > 0.0) {
      const double inv = 1.0 / std::sqrt(sq);
      for (std::size_t i = 0; i < d; ++i) out[i] *= inv;
      return;
    }
  }
}

void l2_laplace_noise(RandomSource& rng, double* out, std::size_t d, double sensitivity, double epsilon) {
  require_positive(sensitivity, "the sensitivity");
  require_positive(epsilon, "epsilon");
  // Density prop. to exp(-eps ||v|| / Delta) is spherically symmetric; in
  // polar coordinates the radial density is prop. to r^{d-1} exp(-eps r / Delta),
  // i.e. Gamma(shape d, scale Delta/eps), independent of the direction.
  uniform_direction(rng, out, d);
  const double r = gamma(rng, static_cast<double>(d), sensitivity / epsilon);
  for (std::size_t i = 0; i < d; ++i) out[i] *= r;
}

void gaussian_noise(RandomSource& rng, double* out, std::size_t d, double sigma) {
  require_positive(sigma, "the standard deviation");
  fill_standard_normal(rng, out, d);
  for (std::size_t i = 0; i < d; ++i) out[i] *= sigma;
}

}  // namespace dptrain::privacy
