// The DP-SGD family's update rules (optimizers.h) on small hand-computed examples.
#include "core/dpsgd/optimizers.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace dptrain::dpsgd {
namespace {

TEST(Optimizers, Sgd) {
  // theta = (1, 2), g = (0.5, -1), alpha = 0.1: (0.95, 2.1). inverse_sqrt at t = 4: step 0.05: (0.975, 2.05).
  double a[2] = {1, 2}, b[2] = {1, 2};
  const double g[2] = {0.5, -1};
  sgd_step(a, g, 2, 0.1, StepDecay::Constant, 4);
  EXPECT_DOUBLE_EQ(a[0], 0.95);
  EXPECT_DOUBLE_EQ(a[1], 2.1);
  sgd_step(b, g, 2, 0.1, StepDecay::InverseSqrt, 4);
  EXPECT_DOUBLE_EQ(b[0], 0.975);
  EXPECT_DOUBLE_EQ(b[1], 2.05);
}

TEST(Optimizers, Momentum) {
  // v = 0.9 (1, 1) + (0.5, -1) = (1.4, -0.1); theta = (1, 2) - 0.1 v = (0.86, 2.01).
  double theta[2] = {1, 2}, v[2] = {1, 1};
  const double g[2] = {0.5, -1};
  momentum_step(theta, v, g, 2, 0.1, 0.9);
  EXPECT_DOUBLE_EQ(v[0], 1.4);
  EXPECT_DOUBLE_EQ(v[1], -0.1);
  EXPECT_DOUBLE_EQ(theta[0], 0.86);
  EXPECT_DOUBLE_EQ(theta[1], 2.01);
}

TEST(Optimizers, Adam) {
  // t = 1 from m = v = 0, g = (0.5, -1), alpha 1e-3, b1 0.9, b2 0.999, xi 1e-8:
  // m = (0.05, -0.1), v = (2.5e-4, 1e-3); m^ = (0.5, -1), v^ = (0.25, 1);
  // step = 1e-3 m^ / (sqrt(v^) + 1e-8) = (9.9999998e-4, -9.9999999e-4):
  // theta = (0.99900000002, 2.00099999999).
  double theta[2] = {1, 2}, m[2] = {0, 0}, v[2] = {0, 0};
  const double g[2] = {0.5, -1};
  adam_step(theta, m, v, g, 2, 1, 1e-3, 0.9, 0.999, 1e-8);
  EXPECT_NEAR(m[0], 0.05, 1e-16);
  EXPECT_NEAR(v[1], 1e-3, 1e-18);
  EXPECT_NEAR(theta[0], 0.99900000002, 1e-14);
  EXPECT_NEAR(theta[1], 2.00099999999, 1e-14);
  // t = 2, same g: m = (0.095, -0.19), v = (4.9975e-4, 1.999e-3), 1 - b1^2 = 0.19,
  // 1 - b2^2 = 0.001999: m^ = (0.5, -1), v^ = (0.25, 1) again, the same step.
  adam_step(theta, m, v, g, 2, 2, 1e-3, 0.9, 0.999, 1e-8);
  EXPECT_NEAR(m[0], 0.095, 1e-16);
  EXPECT_NEAR(v[0], 4.9975e-4, 1e-18);
  EXPECT_NEAR(theta[0], 0.99800000004, 1e-13);
  EXPECT_NEAR(theta[1], 2.00199999998, 1e-13);
}

TEST(Optimizers, AdamWithoutSecondMoment) {
  // t = 1, alpha 0.01, b1 0.9: m = 0.1 g, m^ = g: theta = (1, 2) - 0.01 (0.5, -1) = (0.995, 2.01).
  // t = 2, g = (1, 1): m = 0.9 (0.05, -0.1) + 0.1 (1, 1) = (0.145, 0.01); m^ = m / 0.19 =
  // (0.76315789, 0.05263158); theta = (0.995 - 0.0076315789, 2.01 - 0.0005263158) = (0.98736842, 2.00947368).
  double theta[2] = {1, 2}, m[2] = {0, 0};
  const double g1[2] = {0.5, -1}, g2[2] = {1, 1};
  adam_wosm_step(theta, m, g1, 2, 1, 0.01, 0.9);
  EXPECT_NEAR(theta[0], 0.995, 1e-15);
  EXPECT_NEAR(theta[1], 2.01, 1e-15);
  adam_wosm_step(theta, m, g2, 2, 2, 0.01, 0.9);
  EXPECT_NEAR(m[0], 0.145, 1e-16);
  EXPECT_NEAR(theta[0], 0.98736842, 1e-8);
  EXPECT_NEAR(theta[1], 2.00947368, 1e-8);
}

TEST(Optimizers, AdamWosmEffectiveStepSize) {
  // Mohapatra et al. 2022 Alg. 2 line 3: sigma 1.1, C 1, L 250: 1e-3 / (0.0044 + 1e-8) = 0.22727221;
  // sigma 4, C 0.5, L 100: 1e-3 / (0.02 + 1e-8) = 0.049999975.
  EXPECT_NEAR(adam_wosm_step_size(1.1, 1.0, 250), 0.22727221, 1e-8);
  EXPECT_NEAR(adam_wosm_step_size(4, 0.5, 100), 0.049999975, 1e-9);
}

TEST(Optimizers, AdadpAcceptsAndGrows) {
  // theta = (1, 2), eta = 0.2, first lot g = (1, -1): theta0 = (1, 2), theta1 = (0.8, 2.2),
  // theta = (0.9, 2.1). Second lot g = (0.5, 0.5): theta2 = (0.85, 2.05);
  // err = sqrt(0.05^2 / max(1, 0.64) + 0.15^2 / max(1, 4.84)) = sqrt(0.0025 + 0.0046487603) = 0.08455034.
  // tau = 1: accepted, factor min(max(sqrt(1/0.08455), 0.9), 1.1) = 1.1, eta = 0.22.
  double theta[2] = {1, 2}, theta0[2], theta1[2];
  const double g1[2] = {1, -1}, g2[2] = {0.5, 0.5};
  adadp_first_half(theta, theta0, theta1, g1, 2, 0.2);
  EXPECT_DOUBLE_EQ(theta0[1], 2.0);
  EXPECT_DOUBLE_EQ(theta1[0], 0.8);
  EXPECT_DOUBLE_EQ(theta1[1], 2.2);
  EXPECT_DOUBLE_EQ(theta[0], 0.9);
  const AdadpOutcome o = adadp_second_half(theta, theta0, theta1, g2, 2, 0.2, 1.0);
  EXPECT_NEAR(o.error, 0.0845503, 1e-7);
  EXPECT_TRUE(o.accepted);
  EXPECT_DOUBLE_EQ(o.next_eta, 0.2 * 1.1);
  EXPECT_NEAR(theta[0], 0.85, 1e-15);
  EXPECT_NEAR(theta[1], 2.05, 1e-15);
}

TEST(Optimizers, AdadpRejectsAndShrinks) {
  // Same pair with tau = 0.08: err 0.08455034 > tau, rejected (back to theta0 = (1, 2));
  // factor sqrt(0.08 / 0.08455034) = 0.9727188 (inside the clamp): eta = 0.19454376.
  // tau = 0.05: factor sqrt(0.05 / 0.08455034) = 0.769 -> clamped to 0.9: eta = 0.18.
  for (auto [tau, eta] : {std::pair<double, double>{0.08, 0.19454376}, {0.05, 0.18}}) {
    double theta[2] = {1, 2}, theta0[2], theta1[2];
    const double g1[2] = {1, -1}, g2[2] = {0.5, 0.5};
    adadp_first_half(theta, theta0, theta1, g1, 2, 0.2);
    const AdadpOutcome o = adadp_second_half(theta, theta0, theta1, g2, 2, 0.2, tau);
    EXPECT_FALSE(o.accepted);
    EXPECT_NEAR(o.next_eta, eta, 1e-7);
    EXPECT_EQ(theta[0], 1.0);
    EXPECT_EQ(theta[1], 2.0);
  }
}

TEST(Optimizers, Names) {
  EXPECT_EQ(parse_optimizer("psgd"), OptimizerKind::Sgd);
  EXPECT_EQ(parse_optimizer("dpadamwosm"), OptimizerKind::AdamWosm);
  EXPECT_EQ(optimizer_name(OptimizerKind::Adadp), "adadp");
  EXPECT_EQ(parse_step_decay("inverse_sqrt"), StepDecay::InverseSqrt);
  EXPECT_THROW(parse_optimizer("adam"), Error);
  EXPECT_THROW(parse_step_decay("cosine"), Error);
}

}  // namespace
}  // namespace dptrain::dpsgd
