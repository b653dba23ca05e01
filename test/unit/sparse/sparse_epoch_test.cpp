// The sparse hot path of the epoch aggregate (epoch_state::add_sparse_row)
// against the dense one (add_row) on the same rows: the same model up to
// rounding, for every configuration, and the scaled-weights form (w = a v,
// batch size 1) folded back exactly where it must be.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.h"
#include "core/sgd/epoch_state.h"
#include "core/sparse/sparse_vector.h"

namespace dptrain {
namespace {

namespace es = epoch_state;

struct SparseData {
  std::vector<std::vector<double>> dense;
  std::vector<sparse::Row> rows;
  std::vector<double> y;  // -1/+1, or class index
};

// Rows of dimension d with about `nnz` non-zeros, norms in (0, 1.5] (some
// beyond the feature bound 1, so clipping is exercised).
SparseData sparse_data(int n, int d, int nnz, int classes, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> pick(0, d - 1);
  std::normal_distribution<double> g(0, 1);
  std::uniform_real_distribution<double> u(0.1, 1.5);
  SparseData data;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(d, 0.0);
    for (int k = 0; k < nnz; ++k) x[pick(gen)] = g(gen);
    double sq = 0;
    for (double v : x) sq += v * v;
    const double target = u(gen);
    for (double& v : x) v *= sq > 0 ? target / std::sqrt(sq) : 0;
    const double score = x[0] + x[1] - x[2] + 0.3 * g(gen);
    data.y.push_back(classes == 1 ? (score > 0 ? 1.0 : -1.0) : static_cast<double>(i % classes));
    data.rows.push_back(sparse::from_dense(x.data(), d));
    data.dense.push_back(std::move(x));
  }
  return data;
}

es::EpochConfig config(int d, int models, std::int64_t b, double eta, double lambda, double radius) {
  es::EpochConfig c;
  c.dim = d;
  c.models = models;
  c.batch_size = b;
  c.lambda = lambda;
  c.radius = radius;
  c.schedule.kind = ScheduleKind::Constant;
  c.schedule.eta = eta;
  return c;
}

// `epochs` epochs through the aggregate's state, dense or sparse rows.
std::vector<double> train(const es::EpochConfig& c, const SparseData& data, int epochs, bool sparse) {
  std::vector<double> w(static_cast<std::size_t>(c.dim) * c.models, 0.0);
  std::uint64_t updates = 0;
  for (int e = 0; e < epochs; ++e) {
    std::vector<double> s = es::make_state(c, w.data(), updates);
    for (std::size_t i = 0; i < data.rows.size(); ++i) {
      if (sparse) es::add_sparse_row(s.data(), data.rows[i].view(), data.y[i]);
      else es::add_row(s.data(), data.dense[i].data(), c.dim, data.y[i]);
    }
    es::flush(s.data());
    es::validate(s.data(), s.size());
    EXPECT_EQ(s[es::kWeightScale], 0.0);  // flushed: w itself
    updates = es::updates(s.data());
    std::copy(es::weights(s.data()), es::weights(s.data()) + w.size(), w.begin());
  }
  return w;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

TEST(SparseEpoch, MatchesTheDensePathInEveryConfiguration) {
  struct Case {
    int models;
    std::int64_t b;
    double lambda, radius;
  };
  // b = 1 with lambda and/or radius takes the scaled-weights path; the
  // others accumulate sparsely and step densely.
  for (const Case k : {Case{1, 1, 0.0, 0.0}, Case{1, 1, 0.01, 0.0}, Case{1, 1, 0.01, 0.5}, Case{1, 1, 0.0, 0.3},
                       Case{1, 7, 0.01, 0.5}, Case{3, 1, 0.01, 0.0}, Case{3, 1, 0.01, 0.4}, Case{3, 5, 0.0, 0.0}}) {
    const SparseData data = sparse_data(400, 50, 5, k.models == 1 ? 1 : k.models, 11);
    const es::EpochConfig c = config(50, k.models, k.b, 0.5, k.lambda, k.radius);
    const auto dense = train(c, data, 3, false);
    const auto sparse = train(c, data, 3, true);
    double scale = 0;
    for (double v : dense) scale = std::max(scale, std::abs(v));
    EXPECT_GT(scale, 0.01);
    EXPECT_LT(max_abs_diff(dense, sparse), 1e-12 * std::max(1.0, scale))
        << "K " << k.models << " b " << k.b << " lambda " << k.lambda << " radius " << k.radius;
  }
}

TEST(SparseEpoch, WhiteBoxNoiseIsTheDensePathsToo) {
  // SCS13's noise is drawn per update from the state's key (batch_noise.h):
  // the sparse rows take the dense update, so the noisy model is the same.
  const SparseData data = sparse_data(300, 20, 3, 1, 9);
  es::EpochConfig c = config(20, 1, 5, 0.3, 0.01, 0.0);
  c.noise = privacy::BatchNoiseKind::Gaussian;
  c.noise_scale = 0.5;
  c.noise_seeded = true;
  c.noise_key = privacy::KeyWords{1, 2, 3, 4, 5, 6, 7, 8};
  const auto dense = train(c, data, 2, false);
  const auto sparse = train(c, data, 2, true);
  EXPECT_LT(max_abs_diff(dense, sparse), 1e-12);
  EXPECT_GT(max_abs_diff(dense, train(config(20, 1, 5, 0.3, 0.01, 0.0), data, 2, true)), 0.01);  // noise mattered
}

TEST(SparseEpoch, ScaledWeightsStayExactOverManyDecays) {
  // lambda eta = 0.5: the scale halves every update, so after ~330 updates
  // it passes 1e-100 and is folded back (materialize); the radius makes the
  // running ||v||^2 matter. 2,000 updates, compared with the dense path.
  const SparseData data = sparse_data(2000, 30, 3, 1, 5);
  const es::EpochConfig c = config(30, 1, 1, 0.5, 1.0, 0.7);
  const auto dense = train(c, data, 1, false);
  const auto sparse = train(c, data, 1, true);
  EXPECT_LT(max_abs_diff(dense, sparse), 1e-12);
}

TEST(SparseEpoch, ClipsRowsToTheFeatureBoundLikeTheDensePath) {
  // One row of norm 5 (> bound 1), b = 1, eta 1, w0 = 0, logistic:
  // w1 = -eta l'(0) y x/5 = 0.5 * (3, 4) / 5 for y = +1 (l'(0) = -1/2).
  const es::EpochConfig c = config(4, 1, 1, 1.0, 0.0, 0.0);
  std::vector<double> s = es::make_state(c, nullptr, 0);
  const sparse::Row x = sparse::parse("{2:3,4:4}/4");
  es::add_sparse_row(s.data(), x.view(), 1.0);
  es::flush(s.data());
  EXPECT_NEAR(es::weights(s.data())[1], 0.5 * 3 / 5, 1e-15);
  EXPECT_NEAR(es::weights(s.data())[3], 0.5 * 4 / 5, 1e-15);
  EXPECT_EQ(es::weights(s.data())[0], 0.0);
}

TEST(SparseEpoch, RefusesAnotherDimensionAndBadLabels) {
  const es::EpochConfig c = config(4, 1, 1, 1.0, 0.0, 0.0);
  std::vector<double> s = es::make_state(c, nullptr, 0);
  EXPECT_THROW(es::add_sparse_row(s.data(), sparse::parse("{1:1}/5").view(), 1.0), Error);
  EXPECT_THROW(es::add_sparse_row(s.data(), sparse::parse("{1:1}/4").view(), 2.0), Error);
  EXPECT_EQ(es::rows(s.data()), 0u);
}

TEST(SparseEpoch, AScaledStateFromOutsideIsValidatedAndCombinable) {
  // A partial state in the scaled form (a = 0.5) combined with an empty one
  // gives w = a v; a bad scale is refused.
  const es::EpochConfig c = config(2, 1, 1, 1.0, 0.1, 0.0);
  std::vector<double> a = es::make_state(c, nullptr, 0);
  es::add_sparse_row(a.data(), sparse::parse("{1:1}/2").view(), 1.0);
  EXPECT_GT(a[es::kWeightScale], 0.0);  // lambda > 0, b = 1: scaled form
  const double w0 = a[es::kWeightScale] * es::weights(a.data())[0];
  std::vector<double> empty = es::make_state(c, nullptr, 0);
  es::combine(empty.data(), empty.size(), a.data(), a.size());
  EXPECT_NEAR(es::weights(empty.data())[0], w0, 1e-15);
  EXPECT_EQ(empty[es::kWeightScale], 0.0);
  std::vector<double> bad = a;
  bad[es::kWeightScale] = -1;
  EXPECT_THROW(es::validate(bad.data(), bad.size()), Error);
  bad[es::kWeightScale] = 0;
  bad[es::kWeightNormSq] = 1;
  EXPECT_THROW(es::validate(bad.data(), bad.size()), Error);
  bad = a;
  bad[es::kWeightScale] = 1e300;  // outside [1e-100, 1e100]
  EXPECT_THROW(es::validate(bad.data(), bad.size()), Error);
  bad = a;
  bad[es::kWeightScale] = 1e100;
  es::weights(bad.data())[0] = 1e300;  // a v overflows
  EXPECT_THROW(es::validate(bad.data(), bad.size()), Error);
}

}  // namespace
}  // namespace dptrain
