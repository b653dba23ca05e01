#include "core/privacy/batch_noise.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

// The ziggurat of the half-normal f(x) = exp(-x^2/2), x >= 0, with 256
// strips of equal area v (Marsaglia & Tsang 2000, Section 2):
//   x[1] = r, x[i+1] = f^-1(f(x[i]) + v / x[i]) for i = 1..254, x[256] = 0;
//   strip i >= 1 is the rectangle [0, x[i]] x [f(x[i]), f(x[i+1])] (area v);
//   strip 0 is the base rectangle [0, r] x [0, f(r)] plus the tail x > r,
//   drawn as a virtual rectangle of width x[0] = v / f(r).
// r is Marsaglia & Tsang's value for 256 strips; v is computed from r
// exactly (r f(r) + the tail integral sqrt(pi/2) erfc(r / sqrt 2)), so the
// strips close at the top up to rounding (a unit test checks the top strip's
// area against v).
struct Ziggurat {
  static constexpr int kStrips = 256;
  static constexpr double kR = 3.6541528853610088;
  double x[kStrips + 1];
  double f[kStrips + 1];
  double area;

  Ziggurat() {
    const double fr = std::exp(-0.5 * kR * kR);
    area = kR * fr + std::sqrt(std::acos(-1.0) / 2.0) * std::erfc(kR / std::sqrt(2.0));
    x[0] = area / fr;
    x[1] = kR;
    for (int i = 1; i < kStrips - 1; ++i) x[i + 1] = std::sqrt(-2.0 * std::log(area / x[i] + std::exp(-0.5 * x[i] * x[i])));
    x[kStrips] = 0.0;
    for (int i = 0; i <= kStrips; ++i) f[i] = std::exp(-0.5 * x[i] * x[i]);
  }
};

const Ziggurat& ziggurat() {
  static const Ziggurat z;
  return z;
}

inline double unit_interval(std::uint64_t word) {  // [0, 1) from the top 53 bits
  return static_cast<double>(word >> 11) * 0x1.0p-53;
}

inline double draw_normal(Keystream& ks, const Ziggurat& z) {
  for (;;) {
    // Disjoint bits: 0-7 strip, 8 sign, 11-63 the uniform.
    const std::uint64_t w = ks.next_u64();
    const unsigned i = static_cast<unsigned>(w & 0xFF);
    const bool negative = ((w >> 8) & 1) != 0;
    const double x = unit_interval(w) * z.x[i];
    if (x < z.x[i + 1]) return negative ? -x : x;  // inside the strip's core: under the curve
    if (i == 0) {
      // The tail x > r (Marsaglia 1964): a = -ln(U1)/r, b = -ln(U2), accept if 2b > a^2.
      double a, b;
      do {
        a = -std::log(ks.uniform_open01()) / Ziggurat::kR;
        b = -std::log(ks.uniform_open01());
      } while (b + b < a * a);
      const double t = Ziggurat::kR + a;
      return negative ? -t : t;
    }
    // The wedge: a uniform height in the strip, accepted if under the curve.
    const double y = z.f[i] + unit_interval(ks.next_u64()) * (z.f[i + 1] - z.f[i]);
    if (y < std::exp(-0.5 * x * x)) return negative ? -x : x;
  }
}

void require_positive(double v, const char* what) {
  if (!(v > 0) || !std::isfinite(v))
    fail(ErrorKind::InvalidParameter, std::string(what) + " of a noise distribution must be positive and finite",
         "Got " + std::to_string(v) + ".");
}

}  // namespace

const char* batch_noise_name(BatchNoiseKind kind) {
  switch (kind) {
    case BatchNoiseKind::None: return "none";
    case BatchNoiseKind::Gaussian: return "gaussian";
    case BatchNoiseKind::L2Laplace: return "l2_laplace";
  }
  return "?";
}

double normal_ziggurat(Keystream& ks) { return draw_normal(ks, ziggurat()); }

double ziggurat_closure_error() {
  const Ziggurat& z = ziggurat();
  const int top = Ziggurat::kStrips - 1;
  return std::abs(z.x[top] * (1.0 - z.f[top]) - z.area) / z.area;
}

double gamma_keystream(Keystream& ks, double shape, double scale) {
  require_positive(scale, "the scale");
  if (!(shape >= 1.0) || !std::isfinite(shape))
    fail(ErrorKind::InvalidParameter, "the keystream Gamma sampler needs shape >= 1");
  // Marsaglia & Tsang (2000), "A simple method for generating gamma variables".
  const Ziggurat& z = ziggurat();
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = draw_normal(ks, z);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = ks.uniform_open01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return scale * d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

void add_gaussian(Keystream& ks, double* out, std::size_t n, double sigma) {
  require_positive(sigma, "the standard deviation");
  const Ziggurat& z = ziggurat();
  for (std::size_t i = 0; i < n; ++i) out[i] += sigma * draw_normal(ks, z);
}

void add_l2_laplace(Keystream& ks, double* out, std::size_t n, double scale, double* scratch) {
  require_positive(scale, "the scale");
  if (n == 0) fail(ErrorKind::InvalidParameter, "L2-Laplace noise needs at least one dimension");
  const Ziggurat& z = ziggurat();
  // Direction g / ||g|| with g ~ N(0, I_n) is uniform on the sphere (not
  // the ball, algorithms.md trap T7); the radius is Gamma(n, scale).
  double sq;
  do {
    sq = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      scratch[i] = draw_normal(ks, z);
      sq += scratch[i] * scratch[i];
    }
  } while (!(sq > 0.0));
  const double factor = gamma_keystream(ks, static_cast<double>(n), scale) / std::sqrt(sq);
  for (std::size_t i = 0; i < n; ++i) out[i] += factor * scratch[i];
}

void add_batch_noise(BatchNoiseKind kind, double scale, const RandomSource::Key& key, std::uint64_t t,
                     double* out, std::size_t n) {
  if (kind == BatchNoiseKind::None) return;
  if (t == 0 || t >= kSamplingNonceBit) fail(ErrorKind::Internal, "noise nonce out of range");
  Keystream ks(key, t);
  switch (kind) {
    case BatchNoiseKind::None: return;
    case BatchNoiseKind::Gaussian: add_gaussian(ks, out, n, scale); return;
    case BatchNoiseKind::L2Laplace: {
      thread_local std::vector<double> scratch;
      if (scratch.size() < n) scratch.resize(n);
      add_l2_laplace(ks, out, n, scale, scratch.data());
      return;
    }
  }
  fail(ErrorKind::Internal, "unknown batch noise kind");
}

}  // namespace dptrain::privacy
