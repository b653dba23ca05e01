// The noise inside the epoch aggregate has the planned scale: SCS13 and
// BST14 trained end to end (Trainer + epoch states + in-memory epochs, the
// same code path as SQL) on rows whose loss gradients are all zero (x = 0),
// so the released model is exactly the accumulated noise,
//   w_T = - sum_t (eta_t / b) Z_t     (lambda = 0, no projection),
// and its distribution is fixed by the plan's noise scale. Many runs (one
// seed, hence one key, each) give an iid sample; KS with fixed seeds.
#include <gtest/gtest.h>

#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/engine/in_memory.h"
#include "statistics.h"

namespace dptrain {
namespace {

using test::ks_test;
using test::report;

constexpr double kMinP = 1e-3;

InMemoryData zero_rows(int n, int d) {
  InMemoryData data;
  for (int i = 0; i < n; ++i) {
    data.x.emplace_back(d, 0.0);
    data.y.push_back(i % 2);
  }
  return data;
}

TrainingConfig base(const std::string& algorithm, std::int64_t b, int epochs, double epsilon,
                    std::optional<double> delta) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.batch_size = b;
  c.epochs = epochs;
  c.epsilon = epsilon;
  c.delta = delta;
  c.classes = {"neg", "pos"};
  return c;
}

// All coordinates of the models of `runs` runs (seeds first..first+runs-1,
// i.e. one key each), and the plan's sigma.
std::vector<double> coordinates(const TrainingConfig& c, const InMemoryData& data, int first, int runs,
                                double* sigma) {
  std::vector<double> out;
  for (int r = first; r < first + runs; ++r) {
    TrainingConfig cr = c;
    cr.seed = r;
    const Model m = train_in_memory(cr, data, static_cast<std::uint64_t>(r));
    *sigma = m.details["privacy"]["sigma"].get<double>();
    for (int j = 0; j < m.weights.cols(); ++j) out.push_back(m.weights(0, j));
  }
  return out;
}

TEST(WhiteBoxNoiseScale, Scs13GaussianMatchesThePlan) {
  // m = 8, b = 4, k = 2 passes: T = 4 updates, eta_t = 1/sqrt(t), so each
  // coordinate of w_T is N(0, (sigma/b)^2 (1 + 1/2 + 1/3 + 1/4)).
  const InMemoryData data = zero_rows(8, 20);
  double sigma = 0;
  const std::vector<double> w = coordinates(base("scs13", 4, 2, 1.0, 1e-5), data, 1, 2500, &sigma);
  const double sd = sigma / 4 * std::sqrt(1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4);
  boost::math::normal_distribution<> planned(0, sd), off(0, 1.03 * sd);
  EXPECT_GT(report("scs13 Gaussian: w_T vs planned N(0, s^2)", ks_test(w, [&](double x) { return cdf(planned, x); })),
            kMinP);
  // Power: 3% more (or less) noise than planned would be detected.
  EXPECT_LT(ks_test(w, [&](double x) { return cdf(off, x); }), kMinP);
}

TEST(WhiteBoxNoiseScale, Bst14GaussianMatchesThePlan) {
  // Sampled batches: m = 20, b = 5, k = 1: T = 4 updates; convex with a huge
  // radius (never reached) and eta_t = 0.5 / sqrt(t).
  const InMemoryData data = zero_rows(20, 20);
  TrainingConfig c = base("bst14", 5, 1, 1.0, 1e-5);
  c.radius = 1e12;
  c.learning_rate = 0.5;
  double sigma = 0;
  const std::vector<double> w = coordinates(c, data, 100001, 2500, &sigma);
  const double sd = 0.5 * sigma / 5 * std::sqrt(1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4);
  boost::math::normal_distribution<> planned(0, sd), off(0, 0.97 * sd);
  EXPECT_GT(report("bst14 Gaussian: w_T vs planned N(0, s^2)", ks_test(w, [&](double x) { return cdf(planned, x); })),
            kMinP);
  EXPECT_LT(ks_test(w, [&](double x) { return cdf(off, x); }), kMinP);
}

TEST(WhiteBoxNoiseScale, Scs13PureL2LaplaceMatchesThePlan) {
  // One update (m = b = 4, k = 1, eta_1 = 1): w = -Z_1 / 4, so 4 ||w|| is
  // Gamma(d, scale) with the planned scale Delta / eps = 2 / 0.5 = 4.
  const InMemoryData data = zero_rows(4, 5);
  std::vector<double> norms;
  double scale = 0;
  for (int r = 1; r <= 20000; ++r) {
    TrainingConfig c = base("scs13", 4, 1, 0.5, std::nullopt);
    c.seed = r;
    const Model m = train_in_memory(c, data, 1);
    scale = m.details["privacy"]["noise_scale"].get<double>();
    norms.push_back(4 * m.weights.row(0).norm());
  }
  EXPECT_DOUBLE_EQ(scale, 4.0);
  boost::math::gamma_distribution<> planned(5.0, scale), off(5.0, 1.03 * scale);
  EXPECT_GT(report("scs13 L2-Laplace: ||Z|| vs planned Gamma(d, 4)",
                   ks_test(norms, [&](double x) { return cdf(planned, x); })),
            kMinP);
  EXPECT_LT(ks_test(norms, [&](double x) { return cdf(off, x); }), kMinP);
}

}  // namespace
}  // namespace dptrain
