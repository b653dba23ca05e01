#include "core/engine/gradient_state.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Core>

#include "core/error.h"
#include "core/training/feature_row_errors.h"

namespace dptrain::gradient_state {
namespace {

struct Layout {
  std::size_t points, loss, loss_comp, grad, grad_comp, hessian, block, length;
  bool has_block() const { return length > block; }
};

bool blocks_hessian(std::int64_t d, int want) { return (want & kHessian) && d >= kHessianBlockMinDim; }

Layout layout(std::int64_t d, std::int64_t K, std::int64_t P, int want) {
  Layout l{};
  const auto pkd = static_cast<std::size_t>(P * K * d), pk = static_cast<std::size_t>(P * K);
  const auto stored = static_cast<std::size_t>(((want & kLine) ? 2 : P) * K * d);
  l.points = kHeaderSize;
  l.loss = l.points + stored;
  l.loss_comp = l.loss + pk;
  l.grad = l.loss_comp + pk;
  l.grad_comp = l.grad + ((want & kGradient) ? pkd : 0);
  l.hessian = l.grad_comp + ((want & kGradient) ? pkd : 0);
  l.block = l.hessian + ((want & kHessian) ? static_cast<std::size_t>(K * d * d) : 0);
  l.length = l.block + (blocks_hessian(d, want) ? 1 + static_cast<std::size_t>(kHessianBlockRows * (d + K)) : 0);
  return l;
}

Layout layout_of(const double* s) {
  return layout(static_cast<std::int64_t>(s[kDim]), static_cast<std::int64_t>(s[kModels]),
                static_cast<std::int64_t>(s[kPoints]), static_cast<int>(s[kWant]));
}

[[noreturn]] void bad_state(const std::string& why) {
  fail(ErrorKind::InvalidState, "malformed gradient state: " + why, {},
       "Build gradient states with the engine (dptrain.gradient_request), never by hand.");
}

bool non_negative_finite(double v) { return std::isfinite(v) && v >= 0; }

void check_request(const Request& r) {
  if (r.dim < 1 || r.models < 1 || r.points < 1)
    fail(ErrorKind::InvalidParameter, "a gradient request needs d, K and P of at least 1");
  const double values = static_cast<double>(r.points) * r.models * r.dim;
  const double hessian = (r.want & kHessian) ? static_cast<double>(r.models) * r.dim * r.dim : 0.0;
  if (values > kMaxValues || hessian > kMaxValues)
    fail(ErrorKind::ProgramLimit, "a gradient request of " + std::to_string(r.points) + " x " +
                                      std::to_string(r.models) + " x " + std::to_string(r.dim) + " values is too large",
         {}, "Use fewer points, or an optimizer without the Hessian for large d.");
  if (!(r.want & (kLossSums | kGradient | kHessian)) || (r.want & ~(kLossSums | kGradient | kHessian | kLine)))
    fail(ErrorKind::InvalidParameter, "a gradient request must ask for loss sums, gradients or the Hessian");
  if ((r.want & kLine) && (r.want != (kLossSums | kLine) || r.points < 2))
    fail(ErrorKind::InvalidParameter, "a line request asks for loss sums only, at 2 or more points");
  if (!(r.huber_h > 0 && r.huber_h < 1)) fail(ErrorKind::InvalidParameter, "huber_h must be in (0, 1)");
  for (double v : {r.feature_bound, r.coordinate_bound, r.gradient_clip, r.loss_clip})
    if (!non_negative_finite(v)) fail(ErrorKind::InvalidParameter, "clipping bounds must be finite and >= 0");
}

// Neumaier's compensated addition: sum + comp is the sum to within one
// rounding of the exact value for any order of the terms.
inline void add_compensated(double& sum, double& comp, double v) {
  const double t = sum + v;
  comp += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
  sum = t;
}

// The clipped row, in a buffer that grows once (no allocation per row).
template <typename T>
const double* clipped_row(const double* s, const T* x, std::int64_t d) {
  thread_local std::vector<double> row;
  if (static_cast<std::int64_t>(row.size()) < d) row.resize(static_cast<std::size_t>(d));
  double squared = 0;
  for (std::int64_t j = 0; j < d; ++j) {
    row[j] = static_cast<double>(x[j]);
    squared += row[j] * row[j];
  }
  if (!std::isfinite(squared)) refuse_feature_row(row.data(), d);
  const double bound = s[kFeatureBound], norm = std::sqrt(squared);
  if (bound > 0 && norm > bound)
    for (std::int64_t j = 0; j < d; ++j) row[j] *= bound / norm;
  if (const double c = s[kCoordinateBound]; c > 0)
    for (std::int64_t j = 0; j < d; ++j) row[j] = std::clamp(row[j], -c, c);
  return row.data();
}

// out[q] = <w_q, v> for B points w_q = w + q d at once (B independent sums
// in flight, in registers).
template <int B>
void dot_block(const double* w, const double* v, int d, double* out) {
  double a[B] = {};
  for (int j = 0; j < d; ++j)
    for (int b = 0; b < B; ++b) a[b] += w[static_cast<std::size_t>(b) * d + j] * v[j];
  std::copy(a, a + B, out);
}

// out[q] = <w_q, v> for the n points w_q = w + q d. Each product is summed in
// index order, exactly as one dot product at a time (and as the sparse path
// sums its non-zeros), so the bits do not change; but several independent
// sums are in flight at once instead of each addition waiting for the
// previous one. A DP-AGD line search asks for 21 points, and its one-at-a-time
// dot products were half of its time (docs/dpagd.md, "Cost").
void dot_products(const double* w, std::size_t n, const double* v, int d, double* out) {
  std::size_t q = 0;
  for (; q + 8 <= n; q += 8) dot_block<8>(w + q * d, v, d, out + q);
  if (q + 4 <= n) { dot_block<4>(w + q * d, v, d, out + q); q += 4; }
  if (q + 2 <= n) { dot_block<2>(w + q * d, v, d, out + q); q += 2; }
  if (q < n) dot_block<1>(w + q * d, v, d, out + q);
}

// A kLine request's margins from its first two points' dot products (out[0..2K)):
// <w_p, x> = <w_0, x> + p (<w_1, x> - <w_0, x>).
void line_margins(std::size_t P, std::size_t K, double* out) {
  for (std::size_t p = 2; p < P; ++p)
    for (std::size_t k = 0; k < K; ++k) out[p * K + k] = out[k] + static_cast<double>(p) * (out[K + k] - out[k]);
}

// A buffer for the P K dot products of one row, grown once.
double* dot_buffer(std::size_t n) {
  thread_local std::vector<double> dots;
  if (dots.size() < n) dots.resize(n);
  return dots.data();
}

// --- the Hessian block (gradient_state.h) ------------------------------------
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::size_t block_rows(const double* block) { return static_cast<std::size_t>(block[0]); }
double* block_row(double* block, std::size_t r, int d) { return block + 1 + r * d; }
double* block_curvatures(double* block, std::size_t r, int d, int K) {
  return block + 1 + static_cast<std::size_t>(kHessianBlockRows) * d + r * K;
}
const double* block_curvatures(const double* block, int d) {
  return block + 1 + static_cast<std::size_t>(kHessianBlockRows) * d;
}

// H (the d x d upper triangle of model k, row-major) += sum over the block's
// rows r of c_rk v_r v_r^T: one product V^T diag(c_k) V instead of n rank-one
// updates (Eigen computes the upper triangle only).
void add_block_terms(double* H, const double* block, int d, int K, int k) {
  const auto n = static_cast<Eigen::Index>(block_rows(block));
  if (n == 0) return;
  const Eigen::Map<const RowMajor> V(block + 1, n, d);
  const Eigen::Map<const RowMajor> C(block_curvatures(block, d), n, K);
  Eigen::Map<RowMajor> Hk(H, d, d);
  Hk.triangularView<Eigen::Upper>() += V.transpose() * (C.col(k).asDiagonal() * V);
}

// Adds the block's rows to the hessian region and empties the block.
void flush_block(double* s, const Layout& l) {
  if (!l.has_block() || block_rows(s + l.block) == 0) return;
  const int d = dim(s), K = models(s);
  for (int k = 0; k < K; ++k) add_block_terms(s + l.hessian + static_cast<std::size_t>(k) * d * d, s + l.block, d, K, k);
  std::fill(s + l.block, s + l.length, 0.0);
}

// The row's Hessian terms (curvature c_k of model k): into the block when
// the state has one, else one rank-one update per model.
void add_hessian_terms(double* s, const Layout& l, const double* v, const double* curvature) {
  const int d = dim(s), K = models(s);
  if (l.has_block()) {
    double* block = s + l.block;
    const std::size_t r = block_rows(block);
    std::copy(v, v + d, block_row(block, r, d));
    std::copy(curvature, curvature + K, block_curvatures(block, r, d, K));
    block[0] = static_cast<double>(r + 1);
    if (r + 1 == kHessianBlockRows) flush_block(s, l);
    return;
  }
  for (int k = 0; k < K; ++k) {
    const double c = curvature[k];
    if (c == 0) continue;
    double* H = s + l.hessian + static_cast<std::size_t>(k) * d * d;
    for (int i = 0; i < d; ++i) {
      const double ci = c * v[i];
      for (int j = i; j < d; ++j) H[static_cast<std::size_t>(i) * d + j] += ci * v[j];  // upper triangle
    }
  }
}

// A buffer for one row's K curvatures, grown once.
double* curvature_buffer(std::size_t K) {
  thread_local std::vector<double> c;
  if (c.size() < K) c.resize(K);
  return c.data();
}

// What one row adds at point pk for model k of a margin z = y <w, x>: its
// clipped loss to the loss sum; returns the row's gradient scale g (the
// gradient is g x, clipped to the gradient clip by the row's norm), or 0 when
// no gradient is asked for. Dense and sparse rows share it, so they add the
// same values.
struct RowTerms {
  int want;
  LossKind kind;
  double h, loss_clip, grad_clip, row_norm;
};

inline double add_point_loss(double* s, const Layout& l, const RowTerms& t, std::size_t pk, double y, double margin) {
  const double z = y * margin;
  if (t.want & kLossSums) {
    const double loss = loss_value(t.kind, z, t.h);
    add_compensated(s[l.loss + pk], s[l.loss_comp + pk], t.loss_clip > 0 ? std::min(loss, t.loss_clip) : loss);
  }
  if (!(t.want & kGradient)) return 0;
  double g = loss_derivative(t.kind, z, t.h) * y;
  const double norm = std::fabs(g) * t.row_norm;
  if (t.grad_clip > 0 && norm > t.grad_clip) g *= t.grad_clip / norm;
  return g;
}

inline double label_sign(double label, int K, int k) { return (K == 1 ? label == 1.0 : label == k) ? 1.0 : -1.0; }

template <typename T>
void add_row_impl(double* s, const T* x, std::int64_t len, double label) {
  const int d = dim(s), K = models(s), P = points(s), want = static_cast<int>(s[kWant]);
  if (len != d)
    fail(ErrorKind::InvalidData, "a feature array has " + std::to_string(len) + " values, the model has " +
                                     std::to_string(d), {}, "Every row needs the same number of features.");
  const Layout l = layout_of(s);
  const double* v = clipped_row(s, x, d);
  RowTerms t{want, static_cast<LossKind>(static_cast<int>(s[kLoss])), s[kHuberH], s[kLossClip], s[kGradientClip], 0};
  // The row norm only serves the gradient clip.
  if ((want & kGradient) && t.grad_clip > 0) {
    for (int j = 0; j < d; ++j) t.row_norm += v[j] * v[j];
    t.row_norm = std::sqrt(t.row_norm);
  }
  const std::size_t pk_count = static_cast<std::size_t>(P) * K;
  double* dots = dot_buffer(pk_count);
  double* curvature = curvature_buffer(static_cast<std::size_t>(K));
  if (want & kLine) {
    dot_products(s + l.points, 2 * static_cast<std::size_t>(K), v, d, dots);
    line_margins(P, K, dots);
  } else {
    dot_products(s + l.points, pk_count, v, d, dots);
  }
  for (int p = 0; p < P; ++p) {
    for (int k = 0; k < K; ++k) {
      const std::size_t pk = static_cast<std::size_t>(p) * K + k;
      const double y = label_sign(label, K, k);
      const double g = add_point_loss(s, l, t, pk, y, dots[pk]);
      if (want & kGradient) {
        double* sum = s + l.grad + pk * d;
        double* comp = s + l.grad_comp + pk * d;
        for (int j = 0; j < d; ++j) add_compensated(sum[j], comp[j], g * v[j]);
      }
      if ((want & kHessian) && p == 0) curvature[k] = loss_second_derivative(t.kind, y * dots[pk], t.h);
    }
  }
  if (want & kHessian) add_hessian_terms(s, l, v, curvature);
  s[kRows] += 1;
}

// The sparse row clipped as clipped_row clips a dense one (the same sum in
// the same index order), its values in a buffer that grows once.
const double* clipped_sparse_values(const double* s, const sparse::RowView& x) {
  thread_local std::vector<double> values;
  if (static_cast<std::int32_t>(values.size()) < x.nnz) values.resize(static_cast<std::size_t>(x.nnz));
  double squared = 0;
  for (std::int32_t e = 0; e < x.nnz; ++e) {
    values[e] = x.value[e];
    squared += values[e] * values[e];
  }
  if (!std::isfinite(squared)) refuse_feature_row(values.data(), x.nnz);
  const double bound = s[kFeatureBound], norm = std::sqrt(squared);
  if (bound > 0 && norm > bound)
    for (std::int32_t e = 0; e < x.nnz; ++e) values[e] *= bound / norm;
  if (const double c = s[kCoordinateBound]; c > 0)
    for (std::int32_t e = 0; e < x.nnz; ++e) values[e] = std::clamp(values[e], -c, c);
  return values.data();
}

}  // namespace

std::size_t state_length(const Request& r) {
  check_request(r);
  return layout(r.dim, r.models, r.points, r.want).length;
}

std::vector<double> make_state(const Request& r, const double* pts) {
  std::vector<double> s(state_length(r), 0.0);
  s[kMagic] = kMagicValue;
  s[kVersion] = kVersionValue;
  s[kDim] = r.dim;
  s[kModels] = r.models;
  s[kPoints] = r.points;
  s[kLoss] = static_cast<double>(static_cast<int>(r.loss));
  s[kHuberH] = r.huber_h;
  s[kFeatureBound] = r.feature_bound;
  s[kCoordinateBound] = r.coordinate_bound;
  s[kGradientClip] = r.gradient_clip;
  s[kLossClip] = r.loss_clip;
  s[kWant] = r.want;
  const std::size_t n = static_cast<std::size_t>(stored_points(r)) * r.models * r.dim;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(pts[i])) fail(ErrorKind::InvalidParameter, "a model point is NaN or infinite");
    s[kHeaderSize + i] = pts[i];
  }
  return s;
}

namespace {

void validate_header(const double* s, std::size_t len) {
  if (s == nullptr || len < kHeaderSize) bad_state("too short");
  if (s[kMagic] != kMagicValue) bad_state("not a gradient state");
  if (s[kVersion] != kVersionValue) bad_state("unknown version");
  for (int f : {kDim, kModels, kPoints, kLoss, kWant, kRows})
    if (!(s[f] >= 0) || s[f] != std::floor(s[f]) || s[f] > 1e15) bad_state("a header field is not a count");
  if (s[kLoss] != static_cast<int>(LossKind::Logistic) && s[kLoss] != static_cast<int>(LossKind::HuberSvm))
    bad_state("unknown loss");
}

// The number of point values a valid header announces (P * K * d, or 2 K d
// for a kLine request).
std::size_t point_values(const double* s) {
  const auto points = (static_cast<std::int64_t>(s[kWant]) & kLine) ? 2 : static_cast<std::size_t>(s[kPoints]);
  return points * static_cast<std::size_t>(s[kModels]) * static_cast<std::size_t>(s[kDim]);
}

}  // namespace

std::vector<double> request_only(const double* s, std::size_t len) {
  validate(s, len);
  std::vector<double> r(s, s + kHeaderSize + point_values(s));
  r[kRows] = 0;
  return r;
}

bool is_request_only(const double* r, std::size_t len) {
  validate_header(r, len);
  // Never ambiguous: a state holds at least its two loss sums after the points.
  return len == kHeaderSize + point_values(r);
}

std::vector<double> state_from_request(const double* r, std::size_t len) {
  if (!is_request_only(r, len)) {
    validate(r, len);
    std::vector<double> s(r, r + len);
    return s;
  }
  if (r[kRows] != 0) bad_state("a request has counted rows");
  try {
    return make_state(request_of(r), r + kHeaderSize);
  } catch (const Error& e) {
    bad_state(e.what());
  }
}

void validate(const double* s, std::size_t len) {
  validate_header(s, len);
  Request r = request_of(s);
  try {
    if (state_length(r) != len) bad_state("its length does not match its header");
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::InvalidState) throw;
    bad_state(e.what());
  }
  for (std::size_t i = kHeaderSize; i < len; ++i)
    if (!std::isfinite(s[i])) bad_state("a value is NaN or infinite");
  if (const Layout l = layout_of(s); l.has_block()) {
    const double n = s[l.block];
    if (!(n >= 0 && n < kHessianBlockRows) || n != std::floor(n)) bad_state("the Hessian block's row count is not a count");
  }
}

Request request_of(const double* s) {
  Request r;
  r.dim = static_cast<int>(s[kDim]);
  r.models = static_cast<int>(s[kModels]);
  r.points = static_cast<int>(s[kPoints]);
  r.loss = static_cast<LossKind>(static_cast<int>(s[kLoss]));
  r.huber_h = s[kHuberH];
  r.feature_bound = s[kFeatureBound];
  r.coordinate_bound = s[kCoordinateBound];
  r.gradient_clip = s[kGradientClip];
  r.loss_clip = s[kLossClip];
  r.want = static_cast<int>(s[kWant]);
  return r;
}

bool same_request(const double* a, const double* b) {
  for (int f = 0; f < kHeaderSize; ++f)
    if (f != kRows && a[f] != b[f]) return false;
  const std::size_t n = point_values(a);
  return std::equal(a + kHeaderSize, a + kHeaderSize + n, b + kHeaderSize);
}

void add_row(double* s, const double* x, std::int64_t len, double label) { add_row_impl(s, x, len, label); }
void add_row(double* s, const float* x, std::int64_t len, double label) { add_row_impl(s, x, len, label); }

void add_sparse_row(double* s, const sparse::RowView& x, double label) {
  const int d = dim(s), K = models(s), P = points(s), want = static_cast<int>(s[kWant]);
  if (x.dim != d)
    fail(ErrorKind::InvalidData, "a feature array has " + std::to_string(x.dim) + " values, the model has " +
                                     std::to_string(d), {}, "Every row needs the same number of features.");
  const Layout l = layout_of(s);
  const double* v = clipped_sparse_values(s, x);
  const std::int32_t* idx = x.index;
  const std::int32_t nnz = x.nnz;
  RowTerms t{want, static_cast<LossKind>(static_cast<int>(s[kLoss])), s[kHuberH], s[kLossClip], s[kGradientClip], 0};
  for (std::int32_t e = 0; e < nnz; ++e) t.row_norm += v[e] * v[e];
  t.row_norm = std::sqrt(t.row_norm);
  // The dot products as the dense path takes them (all points, or the first
  // two of a line request and the margins from them), so the sums are the same.
  const std::size_t pk_count = static_cast<std::size_t>(P) * K;
  const std::size_t dotted = (want & kLine) ? 2 * static_cast<std::size_t>(K) : pk_count;
  double* dots = dot_buffer(pk_count);
  for (std::size_t pk = 0; pk < dotted; ++pk) {
    const double* w = s + l.points + pk * d;
    double dot = 0;
    for (std::int32_t e = 0; e < nnz; ++e) dot += w[idx[e]] * v[e];
    dots[pk] = dot;
  }
  if (want & kLine) line_margins(P, K, dots);
  for (int p = 0; p < P; ++p) {
    for (int k = 0; k < K; ++k) {
      const std::size_t pk = static_cast<std::size_t>(p) * K + k;
      const double y = label_sign(label, K, k);
      const double g = add_point_loss(s, l, t, pk, y, dots[pk]);
      if (want & kGradient) {
        double* sum = s + l.grad + pk * d;
        double* comp = s + l.grad_comp + pk * d;
        for (std::int32_t e = 0; e < nnz; ++e) add_compensated(sum[idx[e]], comp[idx[e]], g * v[e]);
      }
      if ((want & kHessian) && p == 0) {
        const double c = loss_second_derivative(t.kind, y * dots[pk], t.h);
        if (c != 0) {
          double* H = s + l.hessian + static_cast<std::size_t>(k) * d * d;
          for (std::int32_t a = 0; a < nnz; ++a) {
            const double ci = c * v[a];
            const std::size_t row = static_cast<std::size_t>(idx[a]) * d;
            for (std::int32_t b = a; b < nnz; ++b) H[row + idx[b]] += ci * v[b];  // upper triangle
          }
        }
      }
    }
  }
  s[kRows] += 1;
}

void combine(double* into, std::size_t into_len, const double* other, std::size_t other_len) {
  if (into_len != other_len || !same_request(into, other))
    fail(ErrorKind::InvalidState, "cannot combine gradient states of different requests");
  const Layout l = layout_of(into);
  flush_block(into, l);
  const std::size_t pk = static_cast<std::size_t>(points(into)) * models(into);
  const std::size_t pkd = pk * dim(into);
  // Sums: add the other sum compensated, and its compensation term.
  for (std::size_t i = 0; i < pk; ++i) {
    add_compensated(into[l.loss + i], into[l.loss_comp + i], other[l.loss + i]);
    into[l.loss_comp + i] += other[l.loss_comp + i];
  }
  if (static_cast<int>(into[kWant]) & kGradient)
    for (std::size_t i = 0; i < pkd; ++i) {
      add_compensated(into[l.grad + i], into[l.grad_comp + i], other[l.grad + i]);
      into[l.grad_comp + i] += other[l.grad_comp + i];
    }
  for (std::size_t i = l.hessian; i < l.block; ++i) into[i] += other[i];
  if (l.has_block()) {
    const int d = dim(into), K = models(into);
    for (int k = 0; k < K; ++k)
      add_block_terms(into + l.hessian + static_cast<std::size_t>(k) * d * d, other + l.block, d, K, k);
  }
  into[kRows] += other[kRows];
}

const double* point(const double* s, int p, int k) {
  return s + kHeaderSize + (static_cast<std::size_t>(p) * models(s) + k) * dim(s);
}

double loss_sum(const double* s, int p, int k) {
  const Layout l = layout_of(s);
  const std::size_t i = static_cast<std::size_t>(p) * models(s) + k;
  return s[l.loss + i] + s[l.loss_comp + i];
}

std::vector<double> gradient_sum(const double* s, int p, int k) {
  if (!(static_cast<int>(s[kWant]) & kGradient)) fail(ErrorKind::Internal, "the state has no gradient sums");
  const Layout l = layout_of(s);
  const int d = dim(s);
  const std::size_t at = (static_cast<std::size_t>(p) * models(s) + k) * d;
  std::vector<double> g(static_cast<std::size_t>(d));
  for (int j = 0; j < d; ++j) g[j] = s[l.grad + at + j] + s[l.grad_comp + at + j];
  return g;
}

std::vector<double> hessian_sum(const double* s, int k) {
  if (!(static_cast<int>(s[kWant]) & kHessian)) fail(ErrorKind::Internal, "the state has no Hessian sums");
  const Layout l = layout_of(s);
  const int d = dim(s);
  const std::size_t dd = static_cast<std::size_t>(d) * d;
  std::vector<double> H(s + l.hessian + k * dd, s + l.hessian + (k + 1) * dd);
  if (l.has_block()) add_block_terms(H.data(), s + l.block, d, models(s), k);
  std::vector<double> out(dd);
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j)
      out[static_cast<std::size_t>(i) * d + j] = out[static_cast<std::size_t>(j) * d + i] =
          H[static_cast<std::size_t>(i) * d + j];
  return out;
}

}  // namespace dptrain::gradient_state
