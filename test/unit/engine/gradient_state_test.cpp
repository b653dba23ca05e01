#include "core/engine/gradient_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace dptrain::gradient_state {
namespace {

Request binary_request(int d) {
  Request r;
  r.dim = d;
  return r;
}

TEST(GradientState, SumsLossAndGradientOfTwoRowsByHand) {
  // w = (0.5, -1); rows x1 = (0.6, 0.8) y = 1, x2 = (1, 0) y = 0 (-> -1).
  // z1 = +1 * (0.3 - 0.8) = -0.5, z2 = -1 * 0.5 = -0.5.
  // logistic l(-0.5) = ln(1 + e^0.5) = 0.974076984..., l'(-0.5) = -1/(1 + e^-0.5) = -0.622459331...
  // gradient rows: l'(z) y x: (-0.622459 * 0.6, -0.622459 * 0.8) and (+0.622459 * 1, 0).
  const double w[2] = {0.5, -1.0};
  std::vector<double> s = make_state(binary_request(2), w);
  const double x1[2] = {0.6, 0.8}, x2[2] = {1.0, 0.0};
  add_row(s.data(), x1, 2, 1.0);
  add_row(s.data(), x2, 2, 0.0);
  const double l = std::log1p(std::exp(0.5)), g = -1.0 / (1.0 + std::exp(-0.5));
  EXPECT_EQ(rows(s.data()), 2);
  EXPECT_NEAR(loss_sum(s.data(), 0, 0), 2 * l, 1e-15);
  const std::vector<double> grad = gradient_sum(s.data(), 0, 0);
  EXPECT_NEAR(grad[0], g * 0.6 - g * 1.0, 1e-15);
  EXPECT_NEAR(grad[1], g * 0.8, 1e-15);
}

TEST(GradientState, ClipsRowsCoordinatesGradientsAndLosses) {
  const double w[2] = {0.0, 0.0};  // z = 0: l = ln 2, l' = -1/2
  const double x[2] = {3.0, 4.0};  // ||x|| = 5
  Request r = binary_request(2);
  r.feature_bound = 1.0;  // -> (0.6, 0.8)
  std::vector<double> a = make_state(r, w);
  add_row(a.data(), x, 2, 1.0);
  EXPECT_NEAR(gradient_sum(a.data(), 0, 0)[0], -0.5 * 0.6, 1e-15);
  EXPECT_NEAR(gradient_sum(a.data(), 0, 0)[1], -0.5 * 0.8, 1e-15);

  r.feature_bound = 0;       // no row clipping
  r.coordinate_bound = 3.5;  // -> (3, 3.5)
  r.gradient_clip = 0.5;     // ||l' x|| = 0.5 * sqrt(9 + 12.25) = 2.3049 -> scaled to 0.5
  r.loss_clip = 0.5;         // ln 2 = 0.693 -> 0.5
  std::vector<double> b = make_state(r, w);
  add_row(b.data(), x, 2, 1.0);
  const double norm = std::sqrt(9.0 + 12.25);
  EXPECT_NEAR(gradient_sum(b.data(), 0, 0)[0], -3.0 / norm * 0.5, 1e-15);
  EXPECT_NEAR(gradient_sum(b.data(), 0, 0)[1], -3.5 / norm * 0.5, 1e-15);
  EXPECT_DOUBLE_EQ(loss_sum(b.data(), 0, 0), 0.5);
}

// The sums of `n` random rows at K models x P points, computed here one dot
// product at a time in index order with the same compensated addition, must
// equal the state's bit for bit.
void expect_bits_of_one_dot_product_at_a_time(int K, int P) {
  const int d = 13, n = 50;
  std::mt19937_64 gen(7);
  std::normal_distribution<double> g(0, 0.3);
  std::vector<double> points(static_cast<std::size_t>(P) * K * d);
  for (double& v : points) v = g(gen);
  Request r;
  r.dim = d;
  r.models = K;
  r.points = P;
  r.feature_bound = 0;  // rows used as they are, so the reference needs no clipping
  r.gradient_clip = 0.4;
  r.loss_clip = 0.9;
  std::vector<double> s = make_state(r, points.data());
  const std::size_t pk_count = static_cast<std::size_t>(P) * K;
  std::vector<double> loss(pk_count, 0), loss_c(pk_count, 0), grad(pk_count * d, 0), grad_c(pk_count * d, 0);
  auto add = [](double& sum, double& comp, double v) {  // Neumaier, as gradient_state.cpp
    const double t = sum + v;
    comp += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  };
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(d);
    for (double& v : x) v = g(gen);
    const double label = K == 1 ? i % 2 : i % K;
    add_row(s.data(), x.data(), d, label);
    double norm = 0;
    for (int j = 0; j < d; ++j) norm += x[j] * x[j];
    norm = std::sqrt(norm);
    for (std::size_t pk = 0; pk < pk_count; ++pk) {
      const int k = static_cast<int>(pk % K);
      const double y = (K == 1 ? label == 1.0 : label == k) ? 1.0 : -1.0;
      double dot = 0;
      for (int j = 0; j < d; ++j) dot += points[pk * d + j] * x[j];
      const double z = y * dot;
      add(loss[pk], loss_c[pk], std::min(loss_value(LossKind::Logistic, z), 0.9));
      double gz = loss_derivative(LossKind::Logistic, z) * y;
      if (std::fabs(gz) * norm > 0.4) gz *= 0.4 / (std::fabs(gz) * norm);
      for (int j = 0; j < d; ++j) add(grad[pk * d + j], grad_c[pk * d + j], gz * x[j]);
    }
  }
  for (int p = 0; p < P; ++p)
    for (int k = 0; k < K; ++k) {
      const std::size_t pk = static_cast<std::size_t>(p) * K + k;
      ASSERT_EQ(loss_sum(s.data(), p, k), loss[pk] + loss_c[pk]) << "point " << p << " model " << k;
      const std::vector<double> gs = gradient_sum(s.data(), p, k);
      for (int j = 0; j < d; ++j)
        ASSERT_EQ(gs[j], grad[pk * d + j] + grad_c[pk * d + j]) << "point " << p << " model " << k << " j " << j;
    }
}

TEST(GradientState, ManyPointsKeepTheBitsOfOneDotProductAtATime) {
  // The pass computes the P K dot products of a row in blocks of 8, 4, 2 and
  // 1 (23 = 8 + 8 + 4 + 2 + 1 every block size; 22 = two models at 11
  // points; 21 = a DP-AGD line search; 1 = a gradient pass).
  for (const auto& [K, P] : std::vector<std::pair<int, int>>{{1, 23}, {2, 11}, {1, 21}, {1, 1}, {3, 1}}) {
    SCOPED_TRACE("K = " + std::to_string(K) + ", P = " + std::to_string(P));
    expect_bits_of_one_dot_product_at_a_time(K, P);
  }
}

// K models at P points w_p = w - p a dir (a line search's candidates).
std::vector<double> line_points(int K, int P, int d, double a, std::mt19937_64& gen) {
  std::normal_distribution<double> g(0, 0.5);
  std::vector<double> w(static_cast<std::size_t>(K) * d), dir(w.size());
  for (double& v : w) v = g(gen);
  for (double& v : dir) v = g(gen);
  std::vector<double> points(static_cast<std::size_t>(P) * w.size());
  for (int p = 0; p < P; ++p)
    for (std::size_t i = 0; i < w.size(); ++i) points[p * w.size() + i] = w[i] - (p * a) * dir[i];
  return points;
}

TEST(GradientState, LineRequestGivesTheLossSumsOfItsPoints) {
  // The same points asked for explicitly and as a line (two dot products per
  // row, margins <w_0, x> + p (<w_1, x> - <w_0, x>)): the loss sums agree to
  // the rounding of the margins (a few ulps of sums of ~1 over 200 rows).
  const int d = 9, K = 2, P = 21, n = 200;
  std::mt19937_64 gen(11);
  std::normal_distribution<double> g(0, 0.4);
  const std::vector<double> points = line_points(K, P, d, 0.1, gen);
  for (const double clip : {0.0, 0.5}) {
    Request r;
    r.dim = d;
    r.models = K;
    r.points = P;
    r.loss_clip = clip;
    r.want = kLossSums;
    std::vector<double> explicit_points = make_state(r, points.data());
    r.want = kLossSums | kLine;
    std::vector<double> line = make_state(r, points.data());
    for (int i = 0; i < n; ++i) {
      std::vector<double> x(d);
      for (double& v : x) v = g(gen);
      add_row(explicit_points.data(), x.data(), d, i % K);
      add_row(line.data(), x.data(), d, i % K);
    }
    for (int p = 0; p < P; ++p)
      for (int k = 0; k < K; ++k) {
        const double a = loss_sum(explicit_points.data(), p, k), b = loss_sum(line.data(), p, k);
        EXPECT_NEAR(a, b, 1e-12 * a) << "point " << p << " model " << k << " clip " << clip;
        if (p < 2) {
          EXPECT_EQ(a, b) << "points 0 and 1 are dot products in both";
        }
      }
  }
}

// A line request holds its first two points only (2 K d values, not P K d):
// the pass needs no more, and P still counts the points and their loss sums.
TEST(GradientState, LineRequestsHoldTwoPoints) {
  std::mt19937_64 gen(12);
  const int d = 4, K = 2, P = 5;
  const std::vector<double> points = line_points(K, P, d, 0.25, gen);
  Request r;
  r.dim = d;
  r.models = K;
  r.points = P;
  r.want = kLossSums | kLine;
  EXPECT_EQ(stored_points(r), 2);
  std::vector<double> s = make_state(r, std::vector<double>(points.begin(), points.begin() + 2 * K * d).data());
  EXPECT_EQ(s.size(), kHeaderSize + 2u * K * d + 2u * P * K);
  EXPECT_NO_THROW(validate(s.data(), s.size()));
  EXPECT_EQ(point(s.data(), 1, 1)[3], points[(K + 1) * d + 3]);
  const std::vector<double> x{0.5, -0.25, 0.125, 1};
  add_row(s.data(), x.data(), d, 1);
  for (int p = 0; p < P; ++p) EXPECT_GT(loss_sum(s.data(), p, 1), 0) << "point " << p;
  // The request alone: the header and the two points.
  const std::vector<double> alone = request_only(s.data(), s.size());
  EXPECT_EQ(alone.size(), kHeaderSize + 2u * K * d);
  EXPECT_EQ(state_from_request(alone.data(), alone.size()).size(), s.size());
  // Loss sums only, and at least two points.
  r.want = kLossSums | kGradient | kLine;
  EXPECT_THROW(make_state(r, points.data()), Error);
  r.want = kLossSums | kLine;
  r.points = 1;
  EXPECT_THROW(make_state(r, points.data()), Error);
}

TEST(GradientState, OneVsAllModelsAndSeveralPoints) {
  // K = 3 models, P = 2 points; a row of class 2 is positive for model 2 only.
  Request r;
  r.dim = 1;
  r.models = 3;
  r.points = 2;
  r.feature_bound = 0;
  const double pts[6] = {0.1, 0.2, 0.3, -1.0, 0.0, 1.0};
  std::vector<double> s = make_state(r, pts);
  const double x[1] = {2.0};
  add_row(s.data(), x, 1, 2.0);
  for (int p = 0; p < 2; ++p)
    for (int k = 0; k < 3; ++k) {
      const double y = k == 2 ? 1.0 : -1.0, z = y * pts[p * 3 + k] * 2.0;
      EXPECT_NEAR(loss_sum(s.data(), p, k), std::log1p(std::exp(-z)), 1e-15) << p << k;
      EXPECT_NEAR(gradient_sum(s.data(), p, k)[0], -1.0 / (1 + std::exp(z)) * y * 2.0, 1e-15) << p << k;
    }
}

TEST(GradientState, HuberLossAndHessianMatchFiniteDifferences) {
  // The Hessian sum at point 0 is the derivative of the gradient sum.
  std::mt19937_64 gen(3);
  std::normal_distribution<double> g;
  for (LossKind kind : {LossKind::Logistic, LossKind::HuberSvm}) {
    Request r = binary_request(3);
    r.loss = kind;
    r.huber_h = 0.5;
    r.want = kLossSums | kGradient | kHessian;
    std::vector<std::vector<double>> xs;
    for (int i = 0; i < 40; ++i) xs.push_back({g(gen) * 0.4, g(gen) * 0.4, g(gen) * 0.4});
    auto sums_at = [&](const std::vector<double>& w) {
      std::vector<double> s = make_state(r, w.data());
      for (int i = 0; i < 40; ++i) add_row(s.data(), xs[i].data(), 3, i % 2);
      return s;
    };
    const std::vector<double> w = {0.3, -0.2, 0.1};
    const std::vector<double> s = sums_at(w);
    const std::vector<double> H = hessian_sum(s.data(), 0);
    const double step = 1e-6;
    for (int j = 0; j < 3; ++j) {
      std::vector<double> up = w, down = w;
      up[j] += step;
      down[j] -= step;
      const std::vector<double> gu = gradient_sum(sums_at(up).data(), 0, 0), gd = gradient_sum(sums_at(down).data(), 0, 0);
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(H[i * 3 + j], (gu[i] - gd[i]) / (2 * step), 1e-5) << i << j;
    }
    // The gradient is the derivative of the loss sum.
    const std::vector<double> grad = gradient_sum(s.data(), 0, 0);
    for (int j = 0; j < 3; ++j) {
      std::vector<double> up = w, down = w;
      up[j] += step;
      down[j] -= step;
      EXPECT_NEAR(grad[j], (loss_sum(sums_at(up).data(), 0, 0) - loss_sum(sums_at(down).data(), 0, 0)) / (2 * step),
                  1e-6);
    }
  }
}

TEST(GradientState, CompensatedSumsSurviveCancellation) {
  // 1e16 followed by many small terms: naive summation loses them all.
  Request r = binary_request(1);
  r.feature_bound = 0;
  r.want = kGradient;
  const double w[1] = {0.0};  // l'(0) y x = -x/2 for y = +1
  std::vector<double> s = make_state(r, w);
  const double big[1] = {-2e16}, small[1] = {-2.0};
  add_row(s.data(), big, 1, 1.0);
  for (int i = 0; i < 1000; ++i) add_row(s.data(), small, 1, 1.0);
  add_row(s.data(), std::vector<double>{2e16}.data(), 1, 1.0);
  EXPECT_DOUBLE_EQ(gradient_sum(s.data(), 0, 0)[0], 1000.0);
}

TEST(GradientState, CombineIsTheSumAndEmptyIsTheIdentity) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> g;
  Request r = binary_request(4);
  r.want = kLossSums | kGradient | kHessian;
  const std::vector<double> w = {0.1, 0.2, -0.3, 0.4};
  std::vector<double> all = make_state(r, w.data()), a = all, b = all;
  const std::vector<double> empty = all;
  for (int i = 0; i < 50; ++i) {
    const std::vector<double> x = {g(gen), g(gen), g(gen), g(gen)};
    add_row(all.data(), x.data(), 4, i % 3 == 0);
    add_row(i < 20 ? a.data() : b.data(), x.data(), 4, i % 3 == 0);
  }
  combine(a.data(), a.size(), b.data(), b.size());
  EXPECT_EQ(rows(a.data()), 50);
  EXPECT_NEAR(loss_sum(a.data(), 0, 0), loss_sum(all.data(), 0, 0), 1e-13);
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(gradient_sum(a.data(), 0, 0)[j], gradient_sum(all.data(), 0, 0)[j], 1e-13);
  const std::vector<double> Ha = hessian_sum(a.data(), 0), Hall = hessian_sum(all.data(), 0);
  for (std::size_t i = 0; i < Ha.size(); ++i) EXPECT_NEAR(Ha[i], Hall[i], 1e-12);
  std::vector<double> c = all;
  combine(c.data(), c.size(), empty.data(), empty.size());
  EXPECT_EQ(c, all);
  // States of different requests do not mix.
  std::vector<double> other_point = make_state(r, std::vector<double>{0, 0, 0, 0}.data());
  EXPECT_THROW(combine(c.data(), c.size(), other_point.data(), other_point.size()), Error);
}

TEST(GradientState, ValidationRejectsMalformedStatesAndRows) {
  std::vector<double> s = make_state(binary_request(2), std::vector<double>{0, 0}.data());
  validate(s.data(), s.size());
  EXPECT_THROW(validate(s.data(), s.size() - 1), Error);
  std::vector<double> bad = s;
  bad[kMagic] = 1;
  EXPECT_THROW(validate(bad.data(), bad.size()), Error);
  bad = s;
  bad[kWant] = 8;
  EXPECT_THROW(validate(bad.data(), bad.size()), Error);
  bad = s;
  bad.back() = std::nan("");
  EXPECT_THROW(validate(bad.data(), bad.size()), Error);
  const double ragged[3] = {1, 2, 3};
  EXPECT_THROW(add_row(s.data(), ragged, 3, 1.0), Error);
  const double inf[2] = {1, INFINITY};
  EXPECT_THROW(add_row(s.data(), inf, 2, 1.0), Error);
  Request huge = binary_request(5000);
  huge.want = kHessian;
  huge.models = 10;
  EXPECT_THROW(state_length(huge), Error);  // 10 x 5000 x 5000 Hessian values
  EXPECT_THROW(make_state(binary_request(2), std::vector<double>{0, NAN}.data()), Error);
}

TEST(GradientState, ARequestAloneExpandsToTheZeroStateAndSumsTheSame) {
  // K = 2 one-vs-all models, d = 3, with the Hessian: the state is
  // 16 + 6 points + 2 + 2 loss sums + 6 + 6 gradient sums + 2 * 9 Hessian = 56
  // values, the request alone 16 + 6 = 22.
  Request r = binary_request(3);
  r.models = 2;
  r.want = kLossSums | kGradient | kHessian;
  const std::vector<double> w{0.5, -1, 0.25, 0.1, 0.2, -0.3};
  std::vector<double> full = make_state(r, w.data());
  ASSERT_EQ(full.size(), 56u);
  const double x[3] = {0.6, -0.8, 0.1};
  add_row(full.data(), x, 3, 1.0);  // a state that has counted a row
  const std::vector<double> request = request_only(full.data(), full.size());
  ASSERT_EQ(request.size(), 22u);
  EXPECT_TRUE(is_request_only(request.data(), request.size()));
  EXPECT_FALSE(is_request_only(full.data(), full.size()));
  EXPECT_EQ(request[kRows], 0);
  for (int f = 0; f < kHeaderSize + 6; ++f) {
    if (f != kRows) {
      EXPECT_EQ(request[f], full[f]) << "value " << f;
    }
  }
  // Expanded: exactly the zero-sum state of the same request and points.
  std::vector<double> expanded = state_from_request(request.data(), request.size());
  EXPECT_EQ(expanded, make_state(r, w.data()));
  // Rows summed into it give the same bits as into the state made directly.
  std::vector<double> direct = make_state(r, w.data());
  const double x2[3] = {1, 0.5, -0.25};
  for (std::vector<double>* s : {&expanded, &direct}) {
    add_row(s->data(), x, 3, 1.0);
    add_row(s->data(), x2, 3, 0.0);
  }
  EXPECT_EQ(expanded, direct);
  // A whole state is taken as it is (as dptrain.gradient_request makes them).
  EXPECT_EQ(state_from_request(full.data(), full.size()), full);
}

TEST(GradientState, MalformedRequestsAreRefused) {
  const std::vector<double> w{0.5, -1};
  const std::vector<double> full = make_state(binary_request(2), w.data());
  const std::vector<double> request = request_only(full.data(), full.size());
  std::vector<double> bad = request;
  bad[kRows] = 1;  // a request counts no rows
  EXPECT_THROW(state_from_request(bad.data(), bad.size()), Error);
  bad = request;
  bad.back() = std::nan("");
  EXPECT_THROW(state_from_request(bad.data(), bad.size()), Error);
  bad = request;
  bad[kMagic] = 0;
  EXPECT_THROW(state_from_request(bad.data(), bad.size()), Error);
  // Neither a request's length nor a state's.
  EXPECT_THROW(state_from_request(request.data(), request.size() - 1), Error);
  EXPECT_THROW(state_from_request(full.data(), full.size() + 1), Error);
  EXPECT_THROW(request_only(request.data(), request.size()), Error);  // not a whole state
  // A line request with a third point is neither (it holds two).
  Request line = binary_request(1);
  line.points = 3;
  line.want = kLossSums | kLine;
  const std::vector<double> pts{0, 1};
  std::vector<double> lr = make_state(line, pts.data());
  std::vector<double> lo = request_only(lr.data(), lr.size());
  lo.push_back(2);
  EXPECT_THROW(state_from_request(lo.data(), lo.size()), Error);
}

TEST(GradientState, FloatRowsGiveTheSameSumsAsDoubleRows) {
  std::vector<double> a = make_state(binary_request(2), std::vector<double>{0.25, -0.5}.data()), b = a;
  const double xd[2] = {0.5, 0.25};
  const float xf[2] = {0.5f, 0.25f};
  add_row(a.data(), xd, 2, 1.0);
  add_row(b.data(), xf, 2, 1.0);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace dptrain::gradient_state
