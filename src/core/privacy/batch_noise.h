// Per-mini-batch noise of the white-box algorithms (SCS13, BST14), drawn in
// bulk from one Keystream per update and added in place to the gradient sum
// of the batch, with no allocation on the per-batch path.
//
// Why not the general samplers of samplers.h: those draw every uniform
// through a heap-allocated RandomSource and use the polar method (a log and
// a square root per pair of normals). At batch size 1 the noise is drawn
// once per row, and a training row costs ~0.3 us in PostgreSQL, so the noise
// must cost a few ns per coordinate. Here:
//   normal_ziggurat  Marsaglia & Tsang (2000), "The Ziggurat Method for
//                    Generating Random Variables", 256 strips, with exact
//                    rejection (wedges) and Marsaglia's (1964) exact tail
//                    sampler; layer index, sign and the 53-bit uniform come
//                    from disjoint bits of one 64-bit word (Doornik 2005:
//                    reusing bits correlates them). One 64-bit word and no
//                    transcendental function for ~99% of the values.
//   gamma            Marsaglia & Tsang (2000) for shape >= 1 (as samplers.h,
//                    with the ziggurat normal).
// Both are exact samplers up to floating point; the same caveats as in
// samplers.h apply (53-bit uniforms, no snapping). test/privacy checks them
// with Kolmogorov-Smirnov tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/privacy/keystream.h"

namespace dptrain::privacy {

enum class BatchNoiseKind {
  None = 0,
  Gaussian = 1,   // N(0, scale^2 I): scale = sigma
  L2Laplace = 2,  // density prop. to exp(-||z|| / scale): scale = sensitivity / epsilon
};

const char* batch_noise_name(BatchNoiseKind kind);

// N(0, 1).
double normal_ziggurat(Keystream& ks);
// Gamma(shape, scale) for shape >= 1 (throws otherwise).
double gamma_keystream(Keystream& ks, double shape, double scale);

// out[i] += sigma * z_i, z_i iid N(0, 1), i < n.
void add_gaussian(Keystream& ks, double* out, std::size_t n, double sigma);
// out += r * u with u uniform on the unit sphere of R^n and r ~ Gamma(n,
// scale) independent: density prop. to exp(-||z|| / scale) (the L2-Laplace
// or "Gamma-norm" mechanism of Chaudhuri-Monteleoni-Sarwate 2011 and Bolt-on
// eq. (3) with scale = sensitivity / epsilon). `scratch` holds n doubles.
void add_l2_laplace(Keystream& ks, double* out, std::size_t n, double scale, double* scratch);

// |area of the top strip - v| / v of the ziggurat's tables: how well the
// strips close at the top (a unit test bounds it).
double ziggurat_closure_error();

// The noise of update t of a run: a fresh Keystream(key, t), then the
// noise of `kind` added to out[0..n). For L2Laplace a thread-local scratch
// buffer is used (allocated once per dimension, never per batch).
void add_batch_noise(BatchNoiseKind kind, double scale, const RandomSource::Key& key, std::uint64_t t,
                     double* out, std::size_t n);

}  // namespace dptrain::privacy
