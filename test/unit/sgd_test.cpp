// Permutation SGD through the epoch-aggregate state, without a database.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <random>

#include "core/error.h"
#include "core/sgd/epoch_state.h"
#include "core/sgd/projection.h"
#include "core/sgd/step_schedule.h"

namespace dptrain {
namespace {

namespace es = epoch_state;

struct Dataset {
  std::vector<std::vector<double>> x;
  std::vector<double> y;  // -1 / +1, or class index
};

// Linearly separable data with a margin: y = sign(<w*, x>), ||x|| <= 1.
Dataset separable(int n, int d, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> w_star(d);
  for (auto& v : w_star) v = g(gen);
  Dataset data;
  while (static_cast<int>(data.x.size()) < n) {
    std::vector<double> x(d);
    double norm = 0, dot = 0;
    for (int i = 0; i < d; ++i) norm += (x[i] = g(gen)) * x[i];
    norm = std::sqrt(norm);
    for (int i = 0; i < d; ++i) dot += (x[i] /= norm) * w_star[i];
    if (std::abs(dot) < 0.1) continue;  // margin
    data.x.push_back(x);
    data.y.push_back(dot > 0 ? 1.0 : -1.0);
  }
  return data;
}

es::EpochConfig config(int d, std::int64_t b, double eta, double lambda = 0.0, double radius = 0.0) {
  es::EpochConfig c;
  c.dim = d;
  c.batch_size = b;
  c.lambda = lambda;
  c.radius = radius;
  c.schedule.kind = ScheduleKind::Constant;
  c.schedule.eta = eta;
  return c;
}

std::vector<double> run_epochs(const es::EpochConfig& c, const Dataset& data, int epochs) {
  std::vector<double> w(static_cast<std::size_t>(c.dim) * c.models, 0.0);
  std::uint64_t updates = 0;
  for (int e = 0; e < epochs; ++e) {
    std::vector<double> s = es::make_state(c, w.data(), updates);
    for (std::size_t i = 0; i < data.x.size(); ++i)
      es::add_row(s.data(), data.x[i].data(), static_cast<std::int64_t>(data.x[i].size()), data.y[i]);
    es::flush(s.data());
    updates = es::updates(s.data());
    std::copy(es::weights(s.data()), es::weights(s.data()) + w.size(), w.begin());
  }
  return w;
}

double accuracy(const std::vector<double>& w, const Dataset& data) {
  int correct = 0;
  for (std::size_t i = 0; i < data.x.size(); ++i) {
    double dot = 0;
    for (std::size_t j = 0; j < w.size(); ++j) dot += w[j] * data.x[i][j];
    correct += (dot >= 0) == (data.y[i] > 0);
  }
  return static_cast<double>(correct) / data.x.size();
}

TEST(Sgd, ConvergesOnSeparableData) {
  const Dataset data = separable(2000, 10, 7);
  for (std::int64_t b : {1, 10, 50}) {
    const auto w = run_epochs(config(10, b, 1.0), data, 10);
    EXPECT_GT(accuracy(w, data), 0.97) << "batch " << b;
  }
}

TEST(Sgd, OneStepMatchesTheFormula) {
  // One row, b = 1, logistic: w1 = w0 - eta * (lambda w0 + l'(y w0.x) y x).
  es::EpochConfig c = config(2, 1, 0.5, 0.1);
  const double w0[2] = {0.3, -0.2};
  std::vector<double> s = es::make_state(c, w0, 0);
  const double x[2] = {0.6, 0.8};
  es::add_row(s.data(), x, 2, -1.0);
  const double z = -1.0 * (0.3 * 0.6 - 0.2 * 0.8);
  const double g = loss_derivative(LossKind::Logistic, z) * -1.0;
  EXPECT_NEAR(es::weights(s.data())[0], 0.3 - 0.5 * (0.1 * 0.3 + g * 0.6), 1e-15);
  EXPECT_NEAR(es::weights(s.data())[1], -0.2 - 0.5 * (0.1 * -0.2 + g * 0.8), 1e-15);
  EXPECT_EQ(es::updates(s.data()), 1u);
}

TEST(Sgd, PartialLastBatchIsDividedByTheNominalBatchSize) {
  // 3 rows with b = 2: one full batch, then a partial batch of one row whose
  // gradient is divided by 2, not 1 (trap T2).
  es::EpochConfig c = config(1, 2, 1.0);
  std::vector<double> s = es::make_state(c, nullptr, 0);
  const double x = 1.0;
  es::add_row(s.data(), &x, 1, 1.0);
  es::add_row(s.data(), &x, 1, 1.0);
  const double after_full = es::weights(s.data())[0];
  EXPECT_NEAR(after_full, 0.5, 1e-15);  // 0 - 1 * (2 * l'(0) * 1) / 2 = 0.5
  es::add_row(s.data(), &x, 1, 1.0);
  EXPECT_EQ(es::weights(s.data())[0], after_full);  // pending
  es::flush(s.data());
  // w <- w - eta * l'(y w x) y x / b with the partial batch's single row and b = 2
  const double expected = after_full - loss_derivative(LossKind::Logistic, after_full) / 2.0;
  EXPECT_NEAR(es::weights(s.data())[0], expected, 1e-15);
  EXPECT_EQ(es::updates(s.data()), 2u);
  EXPECT_EQ(es::rows(s.data()), 3u);
}

TEST(Sgd, RowsAreClippedToTheFeatureBound) {
  es::EpochConfig c = config(2, 1, 1.0);
  std::vector<double> a = es::make_state(c, nullptr, 0), b = es::make_state(c, nullptr, 0);
  const double big[2] = {30.0, 40.0}, unit[2] = {0.6, 0.8};
  es::add_row(a.data(), big, 2, 1.0);
  es::add_row(b.data(), unit, 2, 1.0);
  EXPECT_NEAR(es::weights(a.data())[0], es::weights(b.data())[0], 1e-15);
  EXPECT_NEAR(es::weights(a.data())[1], es::weights(b.data())[1], 1e-15);
}

TEST(Sgd, ProjectionKeepsIteratesInTheBall) {
  const Dataset data = separable(500, 5, 3);
  es::EpochConfig c = config(5, 1, 5.0, 0.0, 0.5);
  const auto w = run_epochs(c, data, 3);
  EXPECT_LE(Eigen::Map<const Eigen::VectorXd>(w.data(), 5).norm(), 0.5 + 1e-12);
  double v[3] = {3, 4, 0};
  project_l2_ball(v, 3, 1.0);
  EXPECT_NEAR(v[0], 0.6, 1e-15);
  EXPECT_NEAR(v[1], 0.8, 1e-15);
  double inside[2] = {0.1, 0.1};
  project_l2_ball(inside, 2, 1.0);  // never scales up (trap T23)
  EXPECT_EQ(inside[0], 0.1);
}

TEST(Sgd, MulticlassOneVsAllLearnsThreeClasses) {
  // Three well separated directions; class = which of them a row is near.
  std::mt19937_64 gen(11);
  std::normal_distribution<double> noise(0, 0.05);
  const double centers[3][2] = {{1, 0}, {-0.5, 0.87}, {-0.5, -0.87}};
  Dataset data;
  for (int i = 0; i < 900; ++i) {
    const int k = i % 3;
    data.x.push_back({centers[k][0] + noise(gen), centers[k][1] + noise(gen), 0.3});
    data.y.push_back(k);
  }
  es::EpochConfig c = config(3, 10, 1.0);
  c.models = 3;
  const auto w = run_epochs(c, data, 10);
  int correct = 0;
  for (std::size_t i = 0; i < data.x.size(); ++i) {
    int best = 0;
    double best_score = -1e300;
    for (int k = 0; k < 3; ++k) {
      double s = 0;
      for (int j = 0; j < 3; ++j) s += w[k * 3 + j] * data.x[i][j];
      if (s > best_score) best_score = s, best = k;
    }
    correct += best == static_cast<int>(data.y[i]);
  }
  EXPECT_GT(correct, 890);
}

TEST(Sgd, CombineIsTheCountWeightedAverage) {
  es::EpochConfig c = config(2, 1, 0.5);
  const double wa[2] = {1, 2}, wb[2] = {4, -1};
  std::vector<double> a = es::make_state(c, wa, 0), b = es::make_state(c, wb, 0);
  a[es::kRows] = 3;
  b[es::kRows] = 1;
  es::combine(a.data(), a.size(), b.data(), b.size());
  EXPECT_DOUBLE_EQ(es::weights(a.data())[0], (3 * 1 + 1 * 4) / 4.0);
  EXPECT_DOUBLE_EQ(es::weights(a.data())[1], (3 * 2 + 1 * -1) / 4.0);
  EXPECT_EQ(es::rows(a.data()), 4u);
}

TEST(Sgd, CombineWithAnEmptyStateIsTheIdentity) {
  es::EpochConfig c = config(2, 1, 0.5);
  const double w[2] = {1, 2};
  std::vector<double> a = es::make_state(c, w, 0), empty = es::make_state(c, nullptr, 0);
  a[es::kRows] = 5;
  const std::vector<double> before = a;
  es::combine(a.data(), a.size(), empty.data(), empty.size());
  EXPECT_EQ(a, before);
  es::combine(empty.data(), empty.size(), a.data(), a.size());
  EXPECT_EQ(empty, before);
}

TEST(Sgd, CombineFlushesPendingBatches) {
  es::EpochConfig c = config(1, 4, 1.0);
  std::vector<double> a = es::make_state(c, nullptr, 0), b = es::make_state(c, nullptr, 0);
  const double x = 1.0;
  es::add_row(a.data(), &x, 1, 1.0);  // pending in both
  es::add_row(b.data(), &x, 1, -1.0);
  es::combine(a.data(), a.size(), b.data(), b.size());
  // each applied its own step of size 1 * 0.5 / 4 in opposite directions
  EXPECT_NEAR(es::weights(a.data())[0], 0.0, 1e-15);
  EXPECT_EQ(a[es::kPending], 0.0);
}

TEST(Sgd, CombineRefusesDifferentConfigurations) {
  std::vector<double> a = es::make_state(config(2, 1, 0.5), nullptr, 0);
  std::vector<double> b = es::make_state(config(2, 1, 0.25), nullptr, 0);
  EXPECT_THROW(es::combine(a.data(), a.size(), b.data(), b.size()), Error);
}

TEST(Sgd, AveragingKeepsTheMeanOfTheIterates) {
  es::EpochConfig c = config(1, 1, 1.0);
  c.averaging = true;
  std::vector<double> s = es::make_state(c, nullptr, 0);
  double iterates = 0;
  const double x = 1.0;
  for (int i = 0; i < 4; ++i) {
    es::add_row(s.data(), &x, 1, i % 2 ? 1.0 : -1.0);
    iterates += es::weights(s.data())[0];
  }
  EXPECT_NEAR(es::average(s.data())[0], iterates / 4, 1e-15);
  EXPECT_EQ(es::averaged(s.data()), 4u);
}

TEST(Sgd, BadRowsAreRejected) {
  std::vector<double> s = es::make_state(config(2, 1, 0.5), nullptr, 0);
  const double nan_row[2] = {std::nan(""), 1}, inf_row[2] = {INFINITY, 1}, ok[2] = {0.1, 0.2};
  EXPECT_THROW(es::add_row(s.data(), nan_row, 2, 1.0), Error);
  EXPECT_THROW(es::add_row(s.data(), inf_row, 2, 1.0), Error);
  EXPECT_THROW(es::add_row(s.data(), ok, 1, 1.0), Error);   // ragged
  EXPECT_THROW(es::add_row(s.data(), ok, 2, 0.5), Error);   // not a binary label
  EXPECT_THROW(es::add_row(s.data(), ok, 2, 2.0), Error);
  es::EpochConfig mc = config(2, 1, 0.5);
  mc.models = 3;
  std::vector<double> m = es::make_state(mc, nullptr, 0);
  EXPECT_THROW(es::add_row(m.data(), ok, 2, 3.0), Error);   // class index out of range
  EXPECT_THROW(es::add_row(m.data(), ok, 2, 1.5), Error);
  EXPECT_NO_THROW(es::add_row(m.data(), ok, 2, 2.0));
  try {
    es::add_row(s.data(), nan_row, 2, 1.0);
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "22P01");
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(Sgd, RealFeaturesGiveTheSameStepAsDouble) {
  es::EpochConfig c = config(2, 1, 0.5);
  std::vector<double> a = es::make_state(c, nullptr, 0), b = es::make_state(c, nullptr, 0);
  const double xd[2] = {0.5, 0.25};
  const float xf[2] = {0.5f, 0.25f};
  es::add_row(a.data(), xd, 2, 1.0);
  es::add_row(b.data(), xf, 2, 1.0);
  EXPECT_EQ(a, b);
}

class MalformedState : public ::testing::TestWithParam<std::pair<int, double>> {};

TEST_P(MalformedState, IsRejected) {
  std::vector<double> s = es::make_state(config(3, 2, 0.5), nullptr, 0);
  const auto [field, value] = GetParam();
  s[static_cast<std::size_t>(field)] = value;
  EXPECT_THROW(es::validate(s.data(), s.size()), Error);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, MalformedState,
    ::testing::Values(std::make_pair(es::kMagic, 1.0), std::make_pair(es::kVersion, 1.0),
                      std::make_pair(es::kShardCounted, 2.0), std::make_pair(es::kShardStates, 1.0),
                      std::make_pair(es::kDim, 4.0), std::make_pair(es::kDim, 0.0), std::make_pair(es::kModels, 2.5),
                      std::make_pair(es::kLoss, 7.0), std::make_pair(es::kHuberH, 0.0),
                      std::make_pair(es::kLambda, -1.0), std::make_pair(es::kBatchSize, 0.0),
                      std::make_pair(es::kSchedule, 9.0), std::make_pair(es::kEta, 0.0),
                      std::make_pair(es::kPending, 2.0), std::make_pair(es::kRows, -1.0),
                      std::make_pair(es::kFeatureBound, std::nan("")), std::make_pair(es::kNoiseFirst, 1.0),
                      std::make_pair(es::kHeaderSize, std::nan("")), std::make_pair(es::kHeaderSize + 1, INFINITY)));

TEST(Sgd, TruncatedOrHugeStatesAreRejected) {
  std::vector<double> s = es::make_state(config(3, 2, 0.5), nullptr, 0);
  EXPECT_THROW(es::validate(s.data(), s.size() - 1), Error);
  EXPECT_THROW(es::validate(s.data(), 5), Error);
  EXPECT_THROW(es::validate(nullptr, 0), Error);
  s[es::kDim] = 1e7;
  s[es::kModels] = 10;
  EXPECT_THROW(es::validate(s.data(), s.size()), Error);
  es::EpochConfig huge = config(5'000'000, 1, 0.5);
  huge.models = 3;
  EXPECT_THROW(es::make_state(huge, nullptr, 0), Error);
}

TEST(StepSchedule, Values) {
  StepSchedule s;
  s.kind = ScheduleKind::StronglyConvex;
  s.beta = 2.0;
  s.gamma = 0.01;
  EXPECT_DOUBLE_EQ(s.at(1), 0.5);        // capped by 1/beta
  EXPECT_DOUBLE_EQ(s.at(1000), 0.1);     // 1/(gamma t)
  s.kind = ScheduleKind::Decreasing;
  s.beta = 1.0;
  s.offset = 100.0;
  EXPECT_DOUBLE_EQ(s.at(1), 2.0 / 101);  // 2/(beta (t + m^c))
  s.kind = ScheduleKind::Sqrt;
  EXPECT_DOUBLE_EQ(s.at(4), 2.0 / 102);  // 2/(beta (sqrt t + m^c))
  s.kind = ScheduleKind::InverseSqrt;
  s.eta = 0.5;
  EXPECT_DOUBLE_EQ(s.at(16), 0.125);
  EXPECT_EQ(parse_schedule("sqrt"), ScheduleKind::Sqrt);
  EXPECT_THROW(parse_schedule("adam"), Error);
}

}  // namespace
}  // namespace dptrain
