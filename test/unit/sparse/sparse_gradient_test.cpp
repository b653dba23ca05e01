// The gradient/loss aggregate on sparse rows (gradient_state::add_sparse_row):
// the zeros it skips add exactly 0 to every sum, so the state must be the
// dense path's bit for bit, with every clipping option and the Hessian.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/engine/gradient_state.h"
#include "core/error.h"
#include "core/sparse/sparse_vector.h"

namespace dptrain {
namespace {

namespace gs = gradient_state;

TEST(SparseGradient, SameStateAsTheDensePathBitForBit) {
  const int d = 12, K = 3, P = 2, n = 200;
  std::mt19937_64 gen(3);
  std::normal_distribution<double> g(0, 1);
  std::uniform_int_distribution<int> pick(0, d - 1);
  std::vector<double> points(static_cast<std::size_t>(P) * K * d);
  for (double& v : points) v = g(gen);
  struct Clips {
    double feature, coordinate, gradient, loss;
  };
  for (const Clips c : {Clips{0, 0, 0, 0}, Clips{1, 0, 0, 0}, Clips{1, 0.3, 0.5, 2.0}}) {
    gs::Request r;
    r.dim = d;
    r.models = K;
    r.points = P;
    r.feature_bound = c.feature;
    r.coordinate_bound = c.coordinate;
    r.gradient_clip = c.gradient;
    r.loss_clip = c.loss;
    r.want = gs::kLossSums | gs::kGradient | gs::kHessian;
    std::vector<double> dense = gs::make_state(r, points.data());
    std::vector<double> sparse = dense;
    for (int i = 0; i < n; ++i) {
      std::vector<double> x(d, 0.0);
      for (int k = 0; k < 3; ++k) x[pick(gen)] = 2 * g(gen);  // norms around 2: clipped
      const double label = i % K;
      gs::add_row(dense.data(), x.data(), d, label);
      gs::add_sparse_row(sparse.data(), sparse::from_dense(x.data(), d).view(), label);
    }
    ASSERT_EQ(dense.size(), sparse.size());
    for (std::size_t i = 0; i < dense.size(); ++i)
      ASSERT_EQ(dense[i], sparse[i]) << "value " << i << " with clips " << c.feature << "/" << c.coordinate;
  }
}

TEST(SparseGradient, LineRequestSameAsTheDensePathBitForBit) {
  // A line search's request (kLine): 2 models at 21 equally spaced points.
  const int d = 12, K = 2, P = 21, n = 200;
  std::mt19937_64 gen(5);
  std::normal_distribution<double> g(0, 1);
  std::uniform_int_distribution<int> pick(0, d - 1);
  std::vector<double> w(static_cast<std::size_t>(K) * d), dir(w.size());
  for (double& v : w) v = g(gen);
  for (double& v : dir) v = g(gen);
  std::vector<double> points(static_cast<std::size_t>(P) * K * d);
  for (int p = 0; p < P; ++p)
    for (std::size_t i = 0; i < w.size(); ++i) points[p * w.size() + i] = w[i] - (p * 0.1) * dir[i];
  gs::Request r;
  r.dim = d;
  r.models = K;
  r.points = P;
  r.loss_clip = 0.5;
  r.want = gs::kLossSums | gs::kLine;
  std::vector<double> dense = gs::make_state(r, points.data());
  std::vector<double> sparse = dense;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(d, 0.0);
    for (int k = 0; k < 3; ++k) x[pick(gen)] = 2 * g(gen);
    gs::add_row(dense.data(), x.data(), d, i % K);
    gs::add_sparse_row(sparse.data(), sparse::from_dense(x.data(), d).view(), i % K);
  }
  for (std::size_t i = 0; i < dense.size(); ++i) ASSERT_EQ(dense[i], sparse[i]) << "value " << i;
}

TEST(SparseGradient, RefusesAnotherDimension) {
  gs::Request r;
  r.dim = 3;
  r.want = gs::kGradient;
  const double w[3] = {0, 0, 0};
  std::vector<double> s = gs::make_state(r, w);
  EXPECT_THROW(gs::add_sparse_row(s.data(), sparse::parse("{1:1}/4").view(), 1.0), Error);
}

}  // namespace
}  // namespace dptrain
