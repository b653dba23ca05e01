// The Hessian block of the gradient state (gradient_state.h): dense rows of
// d >= kHessianBlockMinDim wait in a block and are added as one matrix
// product. What is pinned here: the state's length with the block, that the
// Hessian sum read at any moment (block full, partly full, after combine) is
// the sum of the rows' rank-one terms l''(z) x x^T computed by hand, that the
// sparse path (which does not block) gives the same sums, and that a block
// count which is not a count is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/engine/gradient_state.h"
#include "core/error.h"
#include "core/sparse/sparse_vector.h"

namespace dptrain::gradient_state {
namespace {

Request hessian_request(int d, int K) {
  Request r;
  r.dim = d;
  r.models = K;
  r.feature_bound = 0;  // no clipping: the reference below uses the rows as they are
  r.want = kLossSums | kGradient | kHessian;
  return r;
}

std::vector<std::vector<double>> random_rows(int n, int d, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g(0, 0.3);
  std::vector<std::vector<double>> xs(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(d)));
  for (auto& x : xs)
    for (double& v : x) v = g(gen);
  return xs;
}

// sum_i l''(z_ik) x_i x_i^T for model k, one rank-one term at a time (full matrix).
std::vector<double> reference_hessian(const std::vector<std::vector<double>>& xs, const std::vector<double>& w, int d,
                                      int K, int k) {
  std::vector<double> H(static_cast<std::size_t>(d) * d, 0.0);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double label = static_cast<double>(i % K);
    const double y = (K == 1 ? label == 1.0 : label == k) ? 1.0 : -1.0;
    double dot = 0;
    for (int j = 0; j < d; ++j) dot += w[static_cast<std::size_t>(k) * d + j] * xs[i][j];
    const double c = loss_second_derivative(LossKind::Logistic, y * dot, kDefaultHuberH);
    for (int a = 0; a < d; ++a)
      for (int b = 0; b < d; ++b) H[static_cast<std::size_t>(a) * d + b] += c * xs[i][a] * xs[i][b];
  }
  return H;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

TEST(HessianBlock, StateLengthPinnedByHand) {
  ASSERT_EQ(kHessianBlockRows, 32);
  ASSERT_EQ(kHessianBlockMinDim, 32);
  // d = 40, K = 2, P = 1: 16 header + 80 points + 2 + 2 loss sums + 80 + 80
  // gradient sums + 2 * 1600 Hessian + (1 count + 32 rows * (40 values + 2
  // curvatures)) block = 16 + 80 + 4 + 160 + 3200 + 1345 = 4805.
  EXPECT_EQ(state_length(hessian_request(40, 2)), 4805u);
  // d = 31 < kHessianBlockMinDim: no block, 16 + 62 + 4 + 124 + 2 * 961 = 2128.
  EXPECT_EQ(state_length(hessian_request(31, 2)), 2128u);
  // Without the Hessian there is no block either: 16 + 80 + 4 + 160 = 260.
  Request no_hessian = hessian_request(40, 2);
  no_hessian.want = kLossSums | kGradient;
  EXPECT_EQ(state_length(no_hessian), 260u);
}

TEST(HessianBlock, SumIsTheRankOneTermsAtEveryBlockFill) {
  const int d = 40, K = 2;
  const std::vector<double> w = random_rows(1, K * d, 11)[0];
  const std::vector<std::vector<double>> xs = random_rows(101, d, 12);
  // 1 row (block partly full), 32 (flushed exactly), 33, 101 (3 flushes + 5 waiting).
  for (const int n : {1, 32, 33, 101}) {
    std::vector<double> s = make_state(hessian_request(d, K), w.data());
    const std::vector<std::vector<double>> rows_used(xs.begin(), xs.begin() + n);
    for (int i = 0; i < n; ++i) add_row(s.data(), rows_used[i].data(), d, i % K);
    validate(s.data(), s.size());
    for (int k = 0; k < K; ++k) {
      const std::vector<double> H = hessian_sum(s.data(), k), ref = reference_hessian(rows_used, w, d, K, k);
      const double tol = 1e-14 * n * std::max(1.0, max_abs(ref));
      for (std::size_t i = 0; i < H.size(); ++i) ASSERT_NEAR(H[i], ref[i], tol) << n << " rows, model " << k << ", " << i;
    }
  }
}

TEST(HessianBlock, CombineAddsBothBlocksAndEmptyIsTheIdentity) {
  const int d = 36, K = 1;
  const std::vector<double> w = random_rows(1, d, 21)[0];
  const std::vector<std::vector<double>> xs = random_rows(80, d, 22);
  const std::vector<double> empty = make_state(hessian_request(d, K), w.data());
  std::vector<double> all = empty, a = empty, b = empty;
  for (int i = 0; i < 80; ++i) {
    add_row(all.data(), xs[i].data(), d, i % 2);
    add_row(i < 7 ? a.data() : b.data(), xs[i].data(), d, i % 2);  // 7 and 73 rows: both blocks partly full
  }
  combine(a.data(), a.size(), b.data(), b.size());
  EXPECT_EQ(rows(a.data()), 80);
  const std::vector<double> Ha = hessian_sum(a.data(), 0), Hall = hessian_sum(all.data(), 0);
  for (std::size_t i = 0; i < Ha.size(); ++i) EXPECT_NEAR(Ha[i], Hall[i], 1e-13 * 80) << i;
  // With the empty state: into's block is flushed, the sum does not change by a bit.
  std::vector<double> c = all;
  combine(c.data(), c.size(), empty.data(), empty.size());
  EXPECT_EQ(hessian_sum(c.data(), 0), Hall);
  EXPECT_EQ(gradient_sum(c.data(), 0, 0), gradient_sum(all.data(), 0, 0));
  // The empty state as `into`: it takes the other's sums, its block included.
  std::vector<double> e = empty;
  combine(e.data(), e.size(), all.data(), all.size());
  EXPECT_EQ(hessian_sum(e.data(), 0), Hall);
}

TEST(HessianBlock, SparseRowsGiveTheSameSumsAsBlockedDenseRows) {
  // The sparse path adds its terms to the hessian region directly: every
  // other value is the dense path's bit for bit, the Hessian to rounding.
  const int d = 40, K = 3, n = 110;
  std::mt19937_64 gen(31);
  std::normal_distribution<double> g(0, 1);
  std::uniform_int_distribution<int> pick(0, d - 1);
  Request r = hessian_request(d, K);
  r.feature_bound = 1;  // rows of norm ~2: clipped the same way on both paths
  const std::vector<double> w = random_rows(1, K * d, 32)[0];
  std::vector<double> dense = make_state(r, w.data()), sparse = dense;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(d, 0.0);
    for (int k = 0; k < 4; ++k) x[pick(gen)] = g(gen);
    add_row(dense.data(), x.data(), d, i % K);
    add_sparse_row(sparse.data(), sparse::from_dense(x.data(), d).view(), i % K);
  }
  for (int k = 0; k < K; ++k) {
    EXPECT_EQ(loss_sum(dense.data(), 0, k), loss_sum(sparse.data(), 0, k));
    EXPECT_EQ(gradient_sum(dense.data(), 0, k), gradient_sum(sparse.data(), 0, k));
    const std::vector<double> Hd = hessian_sum(dense.data(), k), Hs = hessian_sum(sparse.data(), k);
    for (std::size_t i = 0; i < Hd.size(); ++i) EXPECT_NEAR(Hd[i], Hs[i], 1e-13 * n) << "model " << k << ", " << i;
  }
}

TEST(HessianBlock, ABlockCountThatIsNotACountIsRefused) {
  const int d = 32;
  std::vector<double> s = make_state(hessian_request(d, 1), std::vector<double>(d, 0.1).data());
  // The block's count is the first value after the K d^2 Hessian sums.
  const std::size_t count_at = s.size() - 1 - static_cast<std::size_t>(kHessianBlockRows) * (d + 1);
  validate(s.data(), s.size());
  for (const double bad : {-1.0, 2.5, static_cast<double>(kHessianBlockRows), 1e300}) {
    std::vector<double> t = s;
    t[count_at] = bad;
    EXPECT_THROW(validate(t.data(), t.size()), Error) << bad;
  }
  std::vector<double> t = s;
  t[count_at] = kHessianBlockRows - 1;  // a full block waiting but one: valid
  validate(t.data(), t.size());
}

}  // namespace
}  // namespace dptrain::gradient_state
