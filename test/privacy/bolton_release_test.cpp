// End to end through the engine's run with algorithm => 'bolton', no database:
// the epochs run through epoch_state exactly as the aggregate would, then
// finish() releases. Many seeded releases of the same noiseless model give
// samples of the noise actually added, which must follow the planned
// distribution: N(0, sigma^2) per coordinate, or an L2-Laplace vector whose
// norm is Gamma(d, Delta/eps) -- per one-vs-all model, with eps/K each.
#include <gtest/gtest.h>

#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/privacy/gaussian_calibration.h"
#include "core/sgd/epoch_state.h"
#include "core/engine/epoch_run.h"
#include "psgd_runner.h"
#include "statistics.h"

namespace dptrain {
namespace {

namespace es = epoch_state;
using test::report;

test::Rows synthetic(int m, int d, int classes, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g;
  test::Rows r;
  r.dim = d;
  for (int i = 0; i < m; ++i) {
    std::vector<double> x(d);
    double sq = 0;
    for (double& v : x) {
      v = g(gen);
      sq += v * v;
    }
    for (double& v : x) v /= std::sqrt(sq);
    r.x.push_back(x);
    if (classes == 2) r.y.push_back(x[0] + 0.3 * x[1] > 0 ? 1.0 : -1.0);
    else r.y.push_back(static_cast<double>(i % classes));
  }
  return r;
}

TrainingConfig bolton_config(const test::Rows& data, int classes) {
  TrainingConfig c;
  c.algorithm = "bolton";
  c.rows = static_cast<std::int64_t>(data.x.size());
  c.dim = data.dim;
  c.classes = classes == 2 ? std::vector<std::string>{"neg", "pos"} : std::vector<std::string>{"a", "b", "c"};
  c.epochs = 2;
  c.batch_size = 10;
  c.epsilon = 0.8;
  return c;
}

// Runs the epochs once and returns the states the aggregate produced.
std::vector<std::vector<double>> run_epochs(EpochRun& t, const test::Rows& data) {
  std::vector<std::vector<double>> outputs;
  while (std::optional<Pass> p = t.next()) {
    std::vector<double> s = p->input;
    for (std::size_t i = 0; i < data.x.size(); ++i) es::add_row(s.data(), data.x[i].data(), data.dim, data.y[i]);
    es::flush(s.data());
    t.accept(s.data(), s.size());
    outputs.push_back(s);
  }
  return outputs;
}

// Noise of `n` seeded releases of the same run: released - noiseless, K x d each.
std::vector<WeightMatrix> noise_samples(TrainingConfig c, const test::Rows& data, int n, TrainingPlan* plan) {
  EpochRun first(c);
  const std::vector<std::vector<double>> outputs = run_epochs(first, data);
  const std::vector<double>& last = outputs.back();
  const int K = es::models(last.data()), d = es::dim(last.data());
  const double* noiseless = c.averaging ? es::average(last.data()) : es::weights(last.data());
  const WeightMatrix w0 = Eigen::Map<const WeightMatrix>(noiseless, K, d);
  *plan = first.plan();
  std::vector<WeightMatrix> out;
  for (int seed = 1; seed <= n; ++seed) {
    c.seed = seed;
    EpochRun t(c);
    for (const auto& s : outputs) {  // replay: same permutation, same data
      EXPECT_TRUE(t.next().has_value());
      t.accept(s.data(), s.size());
    }
    EXPECT_FALSE(t.next().has_value());
    const Model m = t.release(0.0);
    EXPECT_TRUE(m.seeded);
    out.push_back(m.weights - w0);
  }
  return out;
}

TEST(BoltonRelease, GaussianNoiseHasThePlannedSigma) {
  const test::Rows data = synthetic(120, 6, 2, 1);
  TrainingConfig c = bolton_config(data, 2);
  c.delta = 1e-6;
  TrainingPlan plan;
  const std::vector<WeightMatrix> noise = noise_samples(c, data, 3000, &plan);
  const double sigma = plan.privacy["noise"]["sigma"].get<double>();
  // m = 120, b = 10, k = 2, eta = 1/sqrt(120): Delta = 2 * 2 * 1 * 0.0912871 / 10 = 0.0365148
  EXPECT_NEAR(plan.privacy["sensitivity"].get<double>(), 4.0 / std::sqrt(120.0) / 10.0, 1e-15);
  EXPECT_DOUBLE_EQ(sigma, privacy::gaussian_sigma(4.0 / std::sqrt(120.0) / 10.0, 0.8, 1e-6));
  std::vector<double> coords;
  for (const auto& w : noise)
    for (Eigen::Index j = 0; j < w.cols(); ++j) coords.push_back(w(0, j));
  boost::math::normal_distribution<> g(0.0, sigma);
  EXPECT_GT(report("EpochRun bolton (eps,delta): coordinates vs N(0, sigma^2)",
                   test::ks_test(coords, [&](double x) { return cdf(g, x); })),
            1e-3);
  const double sd = std::sqrt(test::variance(coords));
  std::printf("[ noise ] Gaussian: sample sd %.6f, planned sigma %.6f (ratio %.4f)\n", sd, sigma, sd / sigma);
  EXPECT_LT(std::abs(test::variance_z(coords, sigma * sigma, 3 * std::pow(sigma, 4))), 5.0);
  EXPECT_LT(std::abs(test::mean_z(coords, 0.0, sigma)), 5.0);
}

TEST(BoltonRelease, L2LaplaceNoiseNormIsGammaOfTheSensitivity) {
  const test::Rows data = synthetic(120, 6, 2, 2);
  TrainingConfig c = bolton_config(data, 2);
  TrainingPlan plan;
  const std::vector<WeightMatrix> noise = noise_samples(c, data, 4000, &plan);
  const double delta_s = plan.privacy["sensitivity"].get<double>();
  std::vector<double> norms;
  for (const auto& w : noise) norms.push_back(w.row(0).norm());
  boost::math::gamma_distribution<> g(6.0, delta_s / 0.8);
  EXPECT_GT(report("EpochRun bolton eps-DP: ||noise|| vs Gamma(d, Delta/eps)",
                   test::ks_test(norms, [&](double x) { return cdf(g, x); })),
            1e-3);
  std::printf("[ noise ] L2-Laplace: mean norm %.6f, expected d Delta/eps = %.6f\n", test::mean(norms),
              6 * delta_s / 0.8);
  EXPECT_LT(std::abs(test::mean_z(norms, 6 * delta_s / 0.8, std::sqrt(6.0) * delta_s / 0.8)), 5.0);
}

TEST(BoltonRelease, OneVsAllModelsEachGetTheirShareAndIndependentNoise) {
  const test::Rows data = synthetic(90, 4, 3, 3);
  TrainingConfig c = bolton_config(data, 3);
  c.epsilon = 1.5;
  c.lambda = 0.05;  // strongly convex this time: Lemma 8, R = 20
  c.averaging = true;
  TrainingPlan plan;
  const std::vector<WeightMatrix> noise = noise_samples(c, data, 3000, &plan);
  const double delta_s = plan.privacy["sensitivity"].get<double>();
  EXPECT_DOUBLE_EQ(plan.privacy["per_model_epsilon"].get<double>(), 0.5);
  boost::math::gamma_distribution<> g(4.0, delta_s / 0.5);
  double dot01 = 0.0;
  for (int k = 0; k < 3; ++k) {
    std::vector<double> norms;
    for (const auto& w : noise) norms.push_back(w.row(k).norm());
    EXPECT_GT(report("EpochRun bolton one-vs-all: model " + std::to_string(k) + " ||noise|| vs Gamma(d, Delta K/eps)",
                     test::ks_test(norms, [&](double x) { return cdf(g, x); })),
              1e-3);
  }
  // Independent draws per model: E <v_0, v_1> = 0 with sd E||v||^2 / sqrt(d).
  for (const auto& w : noise) dot01 += w.row(0).dot(w.row(1));
  const double second_moment = 4.0 * 5.0 * std::pow(delta_s / 0.5, 2);  // E r^2 = d (d + 1) scale^2
  EXPECT_LT(std::abs(dot01 / noise.size()) / (second_moment / 2.0 / std::sqrt(static_cast<double>(noise.size()))),
            5.0);
}

TEST(BoltonRelease, OneVsAllJointGaussianCoversTheMatrixWithSqrtKSensitivity) {
  const test::Rows data = synthetic(90, 4, 3, 4);
  TrainingConfig c = bolton_config(data, 3);
  c.epsilon = 1.5;
  c.delta = 1e-6;
  c.options = {{"multiclass_noise", "joint"}};
  TrainingPlan plan;
  const std::vector<WeightMatrix> noise = noise_samples(c, data, 2000, &plan);
  // m = 90, b = 10, k = 2, eta = 1/sqrt(90): Delta = 2 * 2 * 1 * (1/sqrt(90)) / 10 per model;
  // the 3 x 4 matrix: sqrt(3) Delta, at the full (1.5, 1e-6).
  const double per_model = 4.0 / std::sqrt(90.0) / 10.0;
  EXPECT_NEAR(plan.privacy["sensitivity"].get<double>(), per_model, 1e-15);
  const double sigma = plan.privacy["noise"]["sigma"].get<double>();
  EXPECT_DOUBLE_EQ(sigma, privacy::gaussian_sigma(std::sqrt(3.0) * per_model, 1.5, 1e-6));
  // Every coordinate of every model is N(0, sigma^2), all independent.
  std::vector<double> coords;
  double dot01 = 0.0;
  for (const auto& w : noise) {
    for (Eigen::Index k = 0; k < w.rows(); ++k)
      for (Eigen::Index j = 0; j < w.cols(); ++j) coords.push_back(w(k, j));
    dot01 += w.row(0).dot(w.row(1));
  }
  boost::math::normal_distribution<> g(0.0, sigma);
  EXPECT_GT(report("EpochRun bolton one-vs-all joint: coordinates vs N(0, sigma^2)",
                   test::ks_test(coords, [&](double x) { return cdf(g, x); })),
            1e-3);
  EXPECT_LT(std::abs(test::variance_z(coords, sigma * sigma, 3 * std::pow(sigma, 4))), 5.0);
  // E <v_0, v_1> = 0 with sd sqrt(d) sigma^2 per draw.
  EXPECT_LT(std::abs(dot01 / noise.size()) / (2.0 * sigma * sigma / std::sqrt(static_cast<double>(noise.size()))), 5.0);
}

TEST(BoltonRelease, SeedsMakeReleasesReproducibleAndSecureOnesDiffer) {
  const test::Rows data = synthetic(60, 3, 2, 4);
  TrainingConfig c = bolton_config(data, 2);
  auto release = [&](std::optional<std::int64_t> seed) {
    TrainingConfig cc = c;
    cc.seed = seed;
    EpochRun t(cc);
    run_epochs(t, data);
    return t.release(0.0);
  };
  const Model a = release(7), b = release(7), s1 = release(std::nullopt), s2 = release(std::nullopt);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_NE(a.weights, release(8).weights);
  EXPECT_NE(s1.weights, s2.weights);
  EXPECT_FALSE(s1.seeded);
  EXPECT_TRUE(a.seeded);
  EXPECT_EQ(a.details["seed"], 7);
  EXPECT_FALSE(s1.details.contains("seed"));
}

TEST(BoltonRelease, MetadataDependsOnPublicFactsOnly) {
  // Two different tables with the same public facts (n, d, classes) give the
  // same privacy and hyperparameter records (trap T5): nothing data-dependent.
  const test::Rows d1 = synthetic(80, 5, 2, 5), d2 = synthetic(80, 5, 2, 6);
  TrainingConfig c = bolton_config(d1, 2);
  c.delta = 1e-5;
  c.seed = 1;
  EpochRun t1(c), t2(c);
  run_epochs(t1, d1);
  run_epochs(t2, d2);
  const Model m1 = t1.release(1.0), m2 = t2.release(1.0);
  EXPECT_NE(m1.weights, m2.weights);
  EXPECT_EQ(m1.details, m2.details);
  const std::set<std::string> allowed = {"hyperparameters", "data", "privacy", "randomness", "seconds", "seed",
                                         "warnings"};
  for (const auto& [key, value] : m1.details.items()) EXPECT_TRUE(allowed.count(key)) << key;
  EXPECT_EQ(m1.details["privacy"]["noise"]["calibration"], "analytic");
}

}  // namespace
}  // namespace dptrain
