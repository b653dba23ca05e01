// Synthetic GLM data for the optimizer tests: Adult-shaped rows (6 numeric
// features in [0, 1] and 8 one-hot groups of Adult's widths, d = 104), or
// small dense rows, with labels drawn from a logistic model.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "core/optim/in_memory_glm.h"

namespace dptrain::optim::testing {

struct Rows {
  RowMatrix x;
  std::vector<int> classes;
};

// Rows like the AMP paper's Adult: numeric then one-hot; classes 0/1 (or 0..K-1
// with `classes` > 2: the class of the largest of K random scores).
inline Rows adult_like(int n, unsigned seed, int classes = 2) {
  static const int kWidths[] = {7, 16, 7, 14, 6, 5, 2, 41};
  const int d = 104;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> normal(0, 1);
  Eigen::MatrixXd w(classes, d);
  for (Eigen::Index k = 0; k < w.size(); ++k) w.data()[k] = 2.5 * normal(gen);
  Rows r{RowMatrix::Zero(n, d), std::vector<int>(static_cast<std::size_t>(n))};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 6; ++j) r.x(i, j) = unit(gen);
    int offset = 6;
    for (int width : kWidths) {
      r.x(i, offset + static_cast<int>(gen() % static_cast<unsigned>(width))) = 1.0;
      offset += width;
    }
    r.x.row(i) /= r.x.row(i).norm();
    const Eigen::VectorXd scores = w * r.x.row(i).transpose();
    if (classes == 2) {
      r.classes[i] = unit(gen) < 1 / (1 + std::exp(-scores[0] + 0.5)) ? 1 : 0;
    } else {
      Eigen::Index best;
      (scores + 0.5 * Eigen::VectorXd::NullaryExpr(classes, [&] { return normal(gen); })).maxCoeff(&best);
      r.classes[i] = static_cast<int>(best);
    }
  }
  return r;
}

// Small dense rows with ||x|| <= 1 and noisy labels (not separable).
inline Rows small_dense(int n, int d, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unit(0, 1);
  Eigen::VectorXd w(d);
  for (int j = 0; j < d; ++j) w[j] = 3 * normal(gen);
  Rows r{RowMatrix(n, d), std::vector<int>(static_cast<std::size_t>(n))};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) r.x(i, j) = normal(gen);
    r.x.row(i) *= unit(gen) / r.x.row(i).norm();
    r.classes[i] = unit(gen) < 1 / (1 + std::exp(-r.x.row(i).dot(w))) ? 1 : 0;
  }
  return r;
}

}  // namespace dptrain::optim::testing
