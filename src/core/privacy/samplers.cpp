#include "core/privacy/samplers.h"

#include <boost/math/distributions/binomial.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/privacy/messages.h"

namespace dptrain::privacy {
namespace {

void require_positive(double value, const char* what) {
  if (!(value > 0) || !std::isfinite(value))
    fail(ErrorKind::InvalidParameter, std::string(what) + " of a noise distribution must be positive and finite",
         "Got " + show(value) + ".",
         "Use an epsilon and a sensitivity (clip, Lipschitz constant) of ordinary size.");
}

// The largest value a draw can take, in units of its scale: the uniforms are multiples of 2^-53,
// so an exponential is at most 53 ln 2 = 36.7 scales and the ziggurat's normal at most
// r + sqrt(2 * 36.7) < 12.3 (samplers.h). A scale above DBL_MAX / bound could round a draw to
// inf (and inf - inf to NaN in a model); such a scale is refused before any draw, never
// clamped.
constexpr double kNormalBound = 16;
constexpr double kExponentialBound = 64;
// Marsaglia-Tsang returns scale * (a - 1/3) (1 + c x)^3 with c = 1/sqrt(9 (a - 1/3)) and
// |x| < 12.3: at most (1 + 12.3/sqrt(6))^3 = 214 times a for a >= 1; with the shape < 1
// reduction (shape a + 1 <= 2) at most 2 * 214 times the scale.
constexpr double kGammaBoundPerShape = 256;

void require_drawable(double scale, double bound, const char* what) {
  if (!(scale <= std::numeric_limits<double>::max() / bound))
    fail(ErrorKind::InvalidParameter, std::string(what) + " of a noise distribution is too large for a double",
         "Got " + show(scale) + "; a draw of up to " + show(bound) + " times it would overflow.",
         "Use a larger epsilon or a smaller sensitivity (clip, Lipschitz constant, learning rate).");
}

// --- the ziggurat normal -----------------------------------------------------------

// The ziggurat of the half-normal f(x) = exp(-x^2/2), x >= 0, with 256
// strips of equal area v (Marsaglia & Tsang 2000, Section 2):
//   x[1] = r, x[i+1] = f^-1(f(x[i]) + v / x[i]) for i = 1..254, x[256] = 0;
//   strip i >= 1 is the rectangle [0, x[i]] x [f(x[i]), f(x[i+1])] (area v);
//   strip 0 is the base rectangle [0, r] x [0, f(r)] plus the tail x > r,
//   drawn as a virtual rectangle of width x[0] = v / f(r).
// A point of strip i at abscissa x < x[i+1] (its "core") lies under the
// curve whatever its height; otherwise it is in the wedge (decided by a
// uniform height) or, for strip 0, in the tail. r is Marsaglia & Tsang's
// value for 256 strips; v is computed from r exactly (r f(r) + the tail
// integral sqrt(pi/2) erfc(r / sqrt 2)), so the strips close at the top up
// to rounding (a unit test checks the top strip's area against v).
struct Ziggurat {
  static constexpr int kStrips = 256;
  static constexpr double kR = 3.6541528853610088;
  double x[kStrips + 1];
  double f[kStrips + 1];
  // x[i] * 2^-53, so that k * scaled[i] for a 53-bit integer k is exactly
  // (k / 2^53) * x[i] (scaling by a power of two is exact) with one multiply.
  double scaled[kStrips];
  double area;

  Ziggurat() {
    const double fr = std::exp(-0.5 * kR * kR);
    area = kR * fr + std::sqrt(std::acos(-1.0) / 2.0) * std::erfc(kR / std::sqrt(2.0));
    x[0] = area / fr;
    x[1] = kR;
    for (int i = 1; i < kStrips - 1; ++i)
      x[i + 1] = std::sqrt(-2.0 * std::log(area / x[i] + std::exp(-0.5 * x[i] * x[i])));
    x[kStrips] = 0.0;
    for (int i = 0; i <= kStrips; ++i) f[i] = std::exp(-0.5 * x[i] * x[i]);
    for (int i = 0; i < kStrips; ++i) scaled[i] = x[i] * 0x1.0p-53;
  }
};

const Ziggurat& ziggurat() {
  static const Ziggurat z;
  return z;
}

constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

// Bits of one 64-bit word: 0-7 the strip, 8 the sign, 11-63 the uniform.
inline unsigned strip_of(std::uint64_t w) { return static_cast<unsigned>(w & 0xFF); }
inline std::uint64_t sign_of(std::uint64_t w) { return (w << 55) & kSignBit; }
inline double abscissa(std::uint64_t w, const Ziggurat& z) {
  return static_cast<double>(w >> 11) * z.scaled[strip_of(w)];
}

// x with its sign bit flipped when `sign` (0 or kSignBit) is set: branch
// free, since the sign is a coin flip no predictor can learn.
inline double with_sign(double x, std::uint64_t sign) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits ^= sign;
  std::memcpy(&x, &bits, sizeof(bits));
  return x;
}

// The rare continuation of draw_normal (about 1% of the draws): word `w`
// fell outside its strip's core. Out of line, to keep the common path small.
[[gnu::noinline]] double normal_outside_core(RandomSource& rng, const Ziggurat& z, std::uint64_t w) {
  for (;;) {
    const unsigned i = strip_of(w);
    const double x = abscissa(w, z);
    if (x < z.x[i + 1]) return with_sign(x, sign_of(w));  // a redrawn word that landed in a core
    if (i == 0) {
      // The tail x > r (Marsaglia 1964): a = -ln(U1)/r, b = -ln(U2), accept
      // r + a if 2b > a^2; its density is then prop. to exp(-(r + a)^2 / 2).
      double a, b;
      do {
        a = -std::log(rng.uniform_open01()) / Ziggurat::kR;
        b = -std::log(rng.uniform_open01());
      } while (b + b < a * a);
      return with_sign(Ziggurat::kR + a, sign_of(w));
    }
    // The wedge: a uniform height in [f(x[i]), f(x[i+1])), accepted if under the curve.
    const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;
    const double y = z.f[i] + u * (z.f[i + 1] - z.f[i]);
    if (y < std::exp(-0.5 * x * x)) return with_sign(x, sign_of(w));
    w = rng.next_u64();  // rejected: a fresh draw
  }
}

// N(0, 1): one word, one multiply and one comparison for ~99% of the values.
inline double draw_normal(RandomSource& rng, const Ziggurat& z) {
  const std::uint64_t w = rng.next_u64();
  const double x = abscissa(w, z);
  if (__builtin_expect(x < z.x[strip_of(w) + 1], 1)) return with_sign(x, sign_of(w));
  return normal_outside_core(rng, z, w);
}

// g ~ N(0, I_d) into g[0..d); returns ||g||^2 > 0 (g = 0, of probability
// 2^-53 for d = 1 and 2^-53d in general, is redrawn).
double gaussian_vector(RandomSource& rng, double* g, std::size_t d) {
  const Ziggurat& z = ziggurat();
  for (;;) {
    double sq = 0.0;
    for (std::size_t i = 0; i < d; ++i) {
      g[i] = draw_normal(rng, z);
      sq += g[i] * g[i];
    }
    if (sq > 0.0) return sq;
  }
}

// --- Gamma ---------------------------------------------------------------------------

// Marsaglia & Tsang (2000), "A simple method for generating gamma
// variables", for shape a >= 1: with d = a - 1/3 and c = 1/sqrt(9d), draw
// x ~ N(0,1), v = (1 + c x)^3 (reject v <= 0), U ~ U(0,1); accept d v if
// U < 1 - 0.0331 x^4 (squeeze) or ln U < x^2/2 + d (1 - v + ln v), and return
// it times `scale`. The method is exact (a rejection sampler); the squeeze
// only saves a log.
double gamma_shape_at_least_one(RandomSource& rng, double a, double scale) {
  const Ziggurat& z = ziggurat();
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = draw_normal(rng, z);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform_open01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return scale * d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

}  // namespace

double standard_normal(RandomSource& rng) { return draw_normal(rng, ziggurat()); }

void fill_standard_normal(RandomSource& rng, double* out, std::size_t n) {
  const Ziggurat& z = ziggurat();
  for (std::size_t i = 0; i < n; ++i) out[i] = draw_normal(rng, z);
}

double ziggurat_closure_error() {
  const Ziggurat& z = ziggurat();
  const int top = Ziggurat::kStrips - 1;
  return std::abs(z.x[top] * (1.0 - z.f[top]) - z.area) / z.area;
}

double exponential(RandomSource& rng, double scale) {
  require_drawable_laplace(scale);  // the exponential's bound
  // Inversion: -ln U with U in (0, 1) on the grid k/2^53, so the value is
  // finite and positive (at most 53 ln 2 scales).
  return -scale * std::log(rng.uniform_open01());
}

double laplace(RandomSource& rng, double scale) {
  require_drawable_laplace(scale);  // the exponential's bound
  // |X| ~ Exp(scale) and an independent fair sign.
  const bool negative = (rng.next_u64() & 1u) != 0;
  const double magnitude = -scale * std::log(rng.uniform_open01());
  return negative ? -magnitude : magnitude;
}

void fill_laplace(RandomSource& rng, double* out, std::size_t n, double scale) {
  require_drawable_laplace(scale);  // the exponential's bound
  for (std::size_t i = 0; i < n; ++i) out[i] = laplace(rng, scale);
}

double gamma(RandomSource& rng, double shape, double scale) {
  require_positive(shape, "the shape");
  require_positive(scale, "the scale");
  require_drawable(scale, kGammaBoundPerShape * std::max(shape + 1.0, 2.0), "the scale");
  if (shape >= 1.0) return gamma_shape_at_least_one(rng, shape, scale);
  // Shape < 1 (Marsaglia & Tsang, Section 6): if G ~ Gamma(a + 1) and
  // U ~ U(0, 1) independent, then G * U^(1/a) ~ Gamma(a). exp(ln U / a) may
  // underflow to 0 for tiny a, the correctly rounded value.
  const double g = gamma_shape_at_least_one(rng, shape + 1.0, scale);
  return g * std::exp(std::log(rng.uniform_open01()) / shape);
}

void uniform_direction(RandomSource& rng, double* out, std::size_t d) {
  if (d == 0) fail(ErrorKind::InvalidParameter, "a direction needs at least one dimension");
  // A standard Gaussian vector is rotation invariant, so g / ||g|| is
  // uniform on the sphere.
  const double inv = 1.0 / std::sqrt(gaussian_vector(rng, out, d));
  for (std::size_t i = 0; i < d; ++i) out[i] *= inv;
}

void add_gaussian_noise(RandomSource& rng, double* out, std::size_t d, double sigma) {
  require_drawable_gaussian(sigma);
  const Ziggurat& z = ziggurat();
  for (std::size_t i = 0; i < d; ++i) out[i] += sigma * draw_normal(rng, z);
}

void add_l2_laplace_noise(RandomSource& rng, double* out, std::size_t d, double scale, double* scratch) {
  if (d == 0) fail(ErrorKind::InvalidParameter, "L2-Laplace noise needs at least one dimension");
  require_drawable_l2_laplace(scale, d);
  // Density prop. to exp(-||v|| / scale) is spherically symmetric; in polar
  // coordinates the radial density is prop. to r^{d-1} exp(-r / scale), i.e.
  // Gamma(shape d, scale), independent of the direction g / ||g||.
  const double sq = gaussian_vector(rng, scratch, d);
  const double factor = gamma_shape_at_least_one(rng, static_cast<double>(d), scale) / std::sqrt(sq);
  for (std::size_t i = 0; i < d; ++i) out[i] += factor * scratch[i];
}

void require_drawable_gaussian(double sigma) {
  require_positive(sigma, "the standard deviation");
  require_drawable(sigma, kNormalBound, "the standard deviation");
}

void require_drawable_laplace(double scale) {
  require_positive(scale, "the scale");
  require_drawable(scale, kExponentialBound, "the scale");
}

void require_drawable_l2_laplace(double scale, std::size_t d) {
  require_positive(scale, "the scale");
  // The norm is Gamma(d, scale); each coordinate is at most the norm.
  require_drawable(scale, kGammaBoundPerShape * (static_cast<double>(d) + 1.0), "the scale");
}

// --- Binomial ------------------------------------------------------------------------

BinomialSampler::BinomialSampler(std::int64_t n, double p) : n_(n) {
  if (n < 0) fail(ErrorKind::InvalidParameter, "a binomial needs n >= 0", "Got " + std::to_string(n) + ".");
  if (!(p >= 0 && p <= 1))
    fail(ErrorKind::InvalidParameter, "a binomial needs 0 <= p <= 1", "Got " + std::to_string(p) + ".");
  flipped_ = p > 0.5;
  p_ = flipped_ ? 1 - p : p;  // exact for p >= 1/2 (Sterbenz)
  mode_ = 0;
  pmf_mode_ = 1;
  cdf_mode_ = 1;
  survival_mode_ = 0;
  up_ratio_ = 0;
  if (n_ == 0 || p_ == 0) return;  // always 0 (before the flip)
  const boost::math::binomial_distribution<double> dist(static_cast<double>(n_), p_);
  mode_ = std::min(n_, static_cast<std::int64_t>(std::floor((static_cast<double>(n_) + 1) * p_)));
  const double m = static_cast<double>(mode_);
  pmf_mode_ = boost::math::pdf(dist, m);
  cdf_mode_ = boost::math::cdf(dist, m);
  survival_mode_ = boost::math::cdf(boost::math::complement(dist, m));
  up_ratio_ = p_ / (1 - p_);
}

std::int64_t BinomialSampler::operator()(RandomSource& rng) const {
  const std::int64_t k = draw_small_p(rng);
  return flipped_ ? n_ - k : k;
}

// The smallest k with P(X <= k) >= U, searched from the mode.
std::int64_t BinomialSampler::draw_small_p(RandomSource& rng) const {
  if (n_ == 0 || p_ == 0) return 0;
  const double u = rng.uniform_open01();
  std::int64_t k = mode_;
  double pk = pmf_mode_;
  if (u <= cdf_mode_) {
    // Down: P(X <= k-1) = P(X <= k) - P(X = k); P(X = k-1) = P(X = k) k (1-p) / ((n-k+1) p).
    double cdf = cdf_mode_;
    while (k > 0 && pk > 0 && cdf - pk >= u) {
      cdf -= pk;
      pk *= static_cast<double>(k) / (static_cast<double>(n_ - k + 1) * up_ratio_);
      --k;
    }
    return k;
  }
  // Up: X <= k  <=>  P(X > k) <= 1 - U (1 - U is exact on the 2^-53 grid); the tail is
  // tracked as the survival function so that U near 1 is resolved, not lost to rounding.
  const double v = 1 - u;
  double survival = survival_mode_;
  while (k < n_ && pk > 0 && survival > v) {
    ++k;
    pk *= static_cast<double>(n_ - k + 1) / static_cast<double>(k) * up_ratio_;
    survival -= pk;
  }
  return k;
}

}  // namespace dptrain::privacy
