// Noise samplers on top of RandomSource (a ChaCha20 keystream): the
// distributions the privacy proofs use, drawn with exact methods from
// 53-bit uniforms. The one set of samplers of dptrain: the bolt-on release,
// the white-box per-batch noise (batch_noise.h) and the random projection
// all draw through these functions.
//
//   standard_normal   the ziggurat of Marsaglia & Tsang (2000), "The Ziggurat
//                     Method for Generating Random Variables", 256 strips,
//                     exact: points outside a strip's core are accepted by
//                     rejection in the wedge, and the tail beyond r by
//                     Marsaglia's (1964) exact tail sampler. Strip index,
//                     sign and the 53-bit uniform come from disjoint bits of
//                     one 64-bit word (Doornik 2005: reusing bits correlates
//                     them). ~99% of the values cost one word and no
//                     transcendental function.
//   exponential       inversion, -scale * ln U
//   laplace           random sign times an exponential
//   gamma             Marsaglia & Tsang (2000), "A simple method for
//                     generating gamma variables", for shape >= 1 (on the
//                     ziggurat normal); for shape < 1 Gamma(a) = Gamma(a + 1)
//                     * U^(1/a) (their Section 6)
//   uniform_direction g / ||g||, g ~ N(0, I_d): uniform on the unit SPHERE
//                     (not the ball: docs/pitfalls.md §P7)
//   add_l2_laplace_noise  density proportional to exp(-||v|| / scale), scale
//                     = sensitivity / epsilon (Bolt-on eq. (3),
//                     Chaudhuri-Monteleoni-Sarwate 2011): ||v|| ~ Gamma(shape
//                     d, scale) times an independent uniform direction
//   add_gaussian_noise    N(0, sigma^2 I_d)
//   BinomialSampler   Binomial(n, p) by inversion, searched from the mode
//                     (Kemp 1986, "A modal method for generating binomial
//                     variables"): the pmf and CDF at the mode from Boost.Math
//                     (relative accuracy ~1e-15), the neighbours by the pmf
//                     ratio; the upper side walks the survival function against
//                     1 - U, so both tails are resolved down to 2^-53
//
// Bulk functions write caller-owned memory and allocate nothing, and the
// normal is inlined into their loops, so a noise vector per mini-batch costs
// a few ns per coordinate (bench/noise_speed).
//
// Floating-point caveats (Mironov, "On significance of the least significant
// bits for differential privacy", CCS 2012). The proofs assume real-valued
// noise; these samplers return doubles:
//   * The uniforms are multiples of 2^-53, so the tails are truncated: an
//     exponential never exceeds 53 ln 2 ~ 36.7 scales (missing mass 1e-16);
//     the normal's tail sampler returns r + a with a = -ln(U1)/r and
//     2(-ln U2) > a^2, so |Z| < r + sqrt(2 * 36.7) ~ 12.2 standard deviations
//     (missing mass below 1e-33), far below any delta we use.
//   * The set of doubles a sampler can output is not the same at every
//     offset, and rounding f(D) + noise to a double can leave traces of f(D)
//     in the low-order bits. Mironov shows this breaks the textbook Laplace
//     mechanism on a single real; his fix is the snapping mechanism (clamp
//     and round to a power-of-two grid larger than the noise's granularity).
//     We do NOT snap: the released models are dense vectors whose values are
//     themselves the result of floating-point SGD, and the noise is drawn per
//     coordinate (Gaussian) or as a product of independent norm and
//     direction (L2-Laplace). This is the same floating-point setting as the
//     reference implementations of the papers, and it is outside the formal
//     guarantee; docs/bolton.md says so.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/privacy/random_source.h"

namespace dptrain::privacy {

// N(0, 1).
double standard_normal(RandomSource& rng);
// Fills out[0..n) with independent N(0, 1) values.
void fill_standard_normal(RandomSource& rng, double* out, std::size_t n);

// Exponential with mean `scale` (> 0): density e^{-x/scale}/scale on x > 0.
double exponential(RandomSource& rng, double scale);

// Laplace with scale b (> 0): density e^{-|x|/b} / (2b).
double laplace(RandomSource& rng, double scale);
void fill_laplace(RandomSource& rng, double* out, std::size_t n, double scale);

// Gamma with shape k > 0 and scale theta > 0: density x^{k-1} e^{-x/theta} /
// (Gamma(k) theta^k). Mean k*theta. For very small shapes (k < ~1e-3) the
// result can underflow to 0, which is the correct rounding of such values.
double gamma(RandomSource& rng, double shape, double scale);

// A uniformly random point of the unit sphere {u : ||u||_2 = 1} in R^d.
void uniform_direction(RandomSource& rng, double* out, std::size_t d);

// out[i] += sigma * z_i, z ~ N(0, I_d), sigma > 0: the Gaussian mechanism's
// noise (Bolt-on Lemma 9, SCS13/BST14 per batch).
void add_gaussian_noise(RandomSource& rng, double* out, std::size_t d, double sigma);

// out += v with density proportional to exp(-||v||_2 / scale), scale =
// sensitivity / epsilon > 0, d >= 1 (the epsilon-DP L2-Laplace or
// "Gamma-norm" mechanism: Bolt-on Theorem 1, eq. (3); SCS13): drawn as
// r * u with r ~ Gamma(d, scale) and u uniform on the sphere. `scratch`
// holds d doubles (the direction); it may not overlap `out`.
void add_l2_laplace_noise(RandomSource& rng, double* out, std::size_t d, double scale, double* scratch);

// Throw Error(InvalidParameter) unless noise of this scale can be drawn: positive, finite, and
// small enough that no draw rounds to inf (the samplers below check the same). Planners call
// them before a budget is charged, so an extreme epsilon or sensitivity is refused up front.
void require_drawable_gaussian(double sigma);
void require_drawable_laplace(double scale);
void require_drawable_l2_laplace(double scale, std::size_t d);

// Binomial(n, p): the number of successes of n independent Bernoulli(p) trials, e.g. the
// size of a Poisson-sampled lot of n rows at rate p. Exact in real arithmetic given U;
// U is a multiple of 2^-53, so each outcome's probability is off by at most 2^-53. The
// constructor does the O(1) work at the mode once (Boost.Math); a draw then costs
// O(sqrt(n p (1-p))) multiplications on average. p > 1/2 draws n - Binomial(n, 1 - p).
class BinomialSampler {
 public:
  BinomialSampler(std::int64_t n, double p);  // n >= 0, 0 <= p <= 1
  std::int64_t operator()(RandomSource& rng) const;

 private:
  std::int64_t draw_small_p(RandomSource& rng) const;  // p <= 1/2

  std::int64_t n_;
  double p_;          // min(p, 1 - p)
  bool flipped_;      // p > 1/2: return n - draw
  std::int64_t mode_;
  double pmf_mode_, cdf_mode_, survival_mode_;  // at the mode: P(X = m), P(X <= m), P(X > m)
  double up_ratio_;   // p / (1 - p)
};

// |area of the top strip - v| / v for the ziggurat's tables: how well the
// strips close at the top (a unit test bounds it).
double ziggurat_closure_error();

}  // namespace dptrain::privacy
