#include "core/dpsgd/clipped_gradient.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/training/feature_row_errors.h"

namespace dptrain::dpsgd {
namespace {

double label_sign(const LinearModels& m, int label, int k) {
  if (m.models == 1) return label == 1 ? 1.0 : -1.0;
  return label == k ? 1.0 : -1.0;
}

void require_label(const LinearModels& m, int label) {
  const int classes = m.models == 1 ? 2 : m.models;
  if (label < 0 || label >= classes)
    fail(ErrorKind::InvalidData, "label out of range for DP-SGD",
         "label " + std::to_string(label) + " of " + std::to_string(classes) + " classes");
}

}  // namespace

double add_clipped_gradient(const LinearModels& m, const double* theta, const double* x, int label, double clip,
                            double* sum) {
  require_label(m, label);
  const int d = m.dim;
  double x_norm2 = 0;
  for (int j = 0; j < d; ++j) x_norm2 += x[j] * x[j];
  // NaN would poison the sum (and the state), infinity or an overflowing
  // norm silently scale the row to 0: refused as by every other pass.
  if (!std::isfinite(x_norm2)) refuse_feature_row(x, d);
  // Row k of G is s_k x with s_k = l'(z_k) y_k, so ||G||_F^2 = ||x||^2 sum_k s_k^2.
  thread_local std::vector<double> scale;
  scale.resize(static_cast<std::size_t>(m.models));
  double s_norm2 = 0;
  for (int k = 0; k < m.models; ++k) {
    const double* w = theta + static_cast<std::size_t>(k) * d;
    double dot = 0;
    for (int j = 0; j < d; ++j) dot += w[j] * x[j];
    const double y = label_sign(m, label, k);
    scale[k] = loss_derivative(m.loss, y * dot, m.huber_h) * y;
    s_norm2 += scale[k] * scale[k];
  }
  const double norm = std::sqrt(x_norm2 * s_norm2);
  const double factor = norm > clip ? clip / norm : 1.0;
  for (int k = 0; k < m.models; ++k) {
    const double s = scale[k] * factor;
    if (s == 0) continue;
    double* out = sum + static_cast<std::size_t>(k) * d;
    for (int j = 0; j < d; ++j) out[j] += s * x[j];
  }
  return norm;
}

}  // namespace dptrain::dpsgd
