// Noise samplers on top of RandomSource (a ChaCha20 keystream): the
// distributions the privacy proofs use, drawn with exact methods from
// 53-bit uniforms.
//
//   standard_normal   Marsaglia's polar method (exact rejection sampler)
//   exponential       inversion, -scale * ln U
//   laplace           random sign times an exponential
//   gamma             Marsaglia & Tsang (2000) for shape >= 1; for shape < 1
//                     Gamma(a) = Gamma(a + 1) * U^(1/a) (their Section 6)
//   uniform_direction g / ||g||, g ~ N(0, I_d): uniform on the unit SPHERE
//                     (not the ball: algorithms.md trap T7)
//   l2_laplace_noise  density proportional to exp(-epsilon ||v|| / Delta)
//                     (Bolt-on eq. (3), Chaudhuri-Monteleoni-Sarwate 2011):
//                     ||v|| ~ Gamma(shape d, scale Delta/epsilon), times an
//                     independent uniform direction
//   gaussian_noise    N(0, sigma^2 I_d)
//
// Bulk functions fill caller-owned memory and allocate nothing, so an
// algorithm can draw one noise vector per mini-batch cheaply.
//
// Floating-point caveats (Mironov, "On significance of the least significant
// bits for differential privacy", CCS 2012). The proofs assume real-valued
// noise; these samplers return doubles:
//   * The uniforms are multiples of 2^-53, so the tails are truncated: an
//     exponential never exceeds 53 ln 2 ~ 36.7 scales (missing mass 1e-16)
//     and the polar normal never exceeds sqrt(-2 ln 2^-103) ~ 12 standard
//     deviations (missing mass ~1e-32), far below any delta we use.
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

#include "core/privacy/random_source.h"

namespace dptrain::privacy {

// N(0, 1).
double standard_normal(RandomSource& rng);
// Fills out[0..n) with independent N(0, 1) values (uses both values of each
// polar pair).
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

// The epsilon-DP output-perturbation noise of Bolt-on (Theorem 1, eq. (3)):
// v with density proportional to exp(-epsilon ||v||_2 / sensitivity), drawn as
// r * u with r ~ Gamma(d, sensitivity/epsilon) and u uniform on the sphere.
void l2_laplace_noise(RandomSource& rng, double* out, std::size_t d, double sensitivity, double epsilon);

// N(0, sigma^2 I_d), sigma > 0.
void gaussian_noise(RandomSource& rng, double* out, std::size_t d, double sigma);

}  // namespace dptrain::privacy
