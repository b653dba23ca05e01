// The state of the gradient/loss aggregate dptrain.gradient_sum (the
// GradientLoss pass): for P model points (each K one-vs-all models of d
// weights) it sums, over the rows it sees, the per-row loss and the per-row
// loss gradient, optionally with the Hessian of the loss at point 0. These
// are exact sums: the combine function adds two states, so the aggregate is
// PARALLEL SAFE and distributes (Citus) without approximation. Sums are
// compensated (Neumaier): full-gradient optimizers (AMP) stop at a gradient
// norm of 1/n^2, which plain summation of n terms would drown.
//
// An ordinary float8[] (DESIGN.md), all values exact doubles:
//
//   [0, kHeaderSize)   header (Field below): the request
//   points             P*K*d   the model points (point-major, then model)
//   loss               P*K     loss sums          } Neumaier sum and its
//   loss_comp          P*K     their compensation } compensation term
//   grad               P*K*d   gradient sums      } only if kWant has
//   grad_comp          P*K*d   their compensation } kGradient
//   hessian            K*d*d   Hessian sums at point 0 (if kWant has kHessian)
//   hessian_block      1 + B*(d+K)  dense rows whose Hessian terms wait to be
//                                    added (if kWant has kHessian and d >= 32):
//                                    the count n < B, then B clipped rows of
//                                    d values, then B x K curvatures l''(z_k)
//
// The Hessian sum is the hessian region plus the terms of the block's n rows.
// A dense row's term l''(z) x x^T is not added on its own (a rank-one update
// of d^2/2 values per row) but with the block's other rows, as one matrix
// product when the block is full, in combine, and when the sum is read: at
// d = 54-100 about 1.5 times faster per row (docs/performance.md, "AMP's
// Hessian"); the sum is the same to rounding, not bit for bit.
//
// Per row (x, y): x is clipped to ||x|| <= feature bound (if > 0) and then
// each coordinate to [-c, c] (if a coordinate bound c > 0, Frank-Wolfe's
// L-infinity Lipschitz bound); for model k the label is +1 if y is its class
// (binary: y = 1) and -1 otherwise; z = label * <w, x>; the row adds
//   loss      min(l(z), C_obj)                    (C_obj = loss clip, 0 = none)
//   gradient  l'(z) label x * min(1, C / ||l'(z) x||)   (C = gradient clip, 0 = none)
//   hessian   l''(z) x x^T                         (point 0, unclipped)
// The regularizer and any noise are the run's business (data-independent).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/loss/loss.h"
#include "core/sparse/sparse_vector.h"

namespace dptrain::gradient_state {

enum Field : int {
  kMagic = 0,
  kVersion,
  kDim,             // d
  kModels,          // K
  kPoints,          // P
  kLoss,            // LossKind
  kHuberH,
  kFeatureBound,    // L2 row clipping bound; 0 = none
  kCoordinateBound, // per-coordinate clipping bound; 0 = none
  kGradientClip,    // per-row, per-model L2 clip of the loss gradient; 0 = none
  kLossClip,        // per-row loss clip C_obj; 0 = none
  kWant,            // bit set of Want
  kRows,            // rows summed so far
  kHeaderSize = 16,
};

// kLine (with kLossSums only, P >= 2): the P points are equally spaced on a
// line, w_p = w_0 + p (w_1 - w_0), as a line search's candidates are, and the
// state holds only w_0 and w_1 (2 K d values; P still counts the points and
// their loss sums). The pass takes two dot products per model, <w_0, x> and
// <w_1, x>, and each margin as <w_0, x> + p (<w_1, x> - <w_0, x>), instead of
// P dot products: the sums are those of the explicit points up to the
// rounding of the margins (DP-AGD's line search, docs/dpagd.md "Cost").
enum Want : int { kLossSums = 1, kGradient = 2, kHessian = 4, kLine = 8 };

constexpr double kMagicValue = 1146115175.0;  // "DPTg"
constexpr int kVersionValue = 3;  // 2: the Hessian block; 3: a line request holds two points
// Rows per Hessian block, and the smallest d with a block (below it the
// rank-one update per row is as fast: measured, docs/performance.md).
constexpr int kHessianBlockRows = 32;
constexpr int kHessianBlockMinDim = 32;
// (P * K * d) and K * d * d above these give a clear error instead of a huge state.
constexpr std::int64_t kMaxValues = 20'000'000;

struct Request {
  int dim = 0;
  int models = 1;
  int points = 1;
  LossKind loss = LossKind::Logistic;
  double huber_h = kDefaultHuberH;
  double feature_bound = 1.0;
  double coordinate_bound = 0.0;
  double gradient_clip = 0.0;
  double loss_clip = 0.0;
  int want = kLossSums | kGradient;
};

// A state asking for `r` at `points` (stored_points(r) * K * d values,
// point-major) with every sum zero. Throws Error(InvalidParameter/ProgramLimit)
// for a bad request.
std::vector<double> make_state(const Request& r, const double* points);
std::size_t state_length(const Request& r);
// The points a state of `r` holds: P, or the first two of a kLine request.
inline int stored_points(const Request& r) { return (r.want & kLine) ? 2 : r.points; }

// The request of the valid state `s` alone: its header (rows 0) and its
// points, without the zero sums. A pass over a Citus table sends this (Citus
// copies the aggregate's arguments into a record for every row it reads, so
// a Hessian's K*d*d zeros would be copied once per row: docs/distributed.md).
std::vector<double> request_only(const double* s, std::size_t len);
// True if `r` (a valid header, else Error(InvalidState)) is a request_only
// array, false if it is as long as a state.
bool is_request_only(const double* r, std::size_t len);
// The zero-sum state of a request_only array, or a copy of a full state;
// either is validated (Error(InvalidState)).
std::vector<double> state_from_request(const double* r, std::size_t len);

// Throws Error(InvalidState) unless `s` is a well-formed state of `len` values.
void validate(const double* s, std::size_t len);
Request request_of(const double* s);
// True if `a` and `b` (both valid) ask for the same thing at the same points.
bool same_request(const double* a, const double* b);

// The hot path: one row (len must equal the state's d, else Error(InvalidData);
// label as in epoch_state: 0/1 binary, class index one-vs-all).
void add_row(double* s, const double* x, std::int64_t len, double label);
void add_row(double* s, const float* x, std::int64_t len, double label);
// The same sums for a sparse row (docs/sparse.md) in O(P K nnz) (Hessian:
// O(K nnz^2), straight into the hessian region): the zeros a sparse row leaves
// out add exactly 0 to every compensated sum, norm and dot product, so the
// sums are the dense path's bit for bit (the Hessian to rounding when the
// dense path blocks it, d >= kHessianBlockMinDim).
void add_sparse_row(double* s, const sparse::RowView& x, double label);

// into += other (both valid, same request); the empty state is the identity
// (of the sums: into's Hessian block is added to its hessian region).
void combine(double* into, std::size_t into_len, const double* other, std::size_t other_len);

// --- results -------------------------------------------------------------------
inline int dim(const double* s) { return static_cast<int>(s[kDim]); }
inline int models(const double* s) { return static_cast<int>(s[kModels]); }
inline int points(const double* s) { return static_cast<int>(s[kPoints]); }
inline std::int64_t rows(const double* s) { return static_cast<std::int64_t>(s[kRows]); }
// Model k at point p (p < 2 for a kLine state: the points it holds).
const double* point(const double* s, int p, int k);
// Compensated sums (sum + compensation).
double loss_sum(const double* s, int p, int k);
std::vector<double> gradient_sum(const double* s, int p, int k);
// The d x d Hessian sum of model k at point 0, row-major.
std::vector<double> hessian_sum(const double* s, int k);

}  // namespace dptrain::gradient_state
