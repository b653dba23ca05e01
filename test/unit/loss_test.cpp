#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/loss/loss.h"

namespace dptrain {
namespace {

class LossTest : public ::testing::TestWithParam<LossKind> {};

// dl/dz against central finite differences, away from the Huber kinks.
TEST_P(LossTest, DerivativeMatchesFiniteDifferences) {
  const LossKind kind = GetParam();
  for (double z : {-5.0, -2.0, -0.7, 0.0, 0.3, 0.95, 1.05, 1.5, 4.0, 30.0}) {
    const double h = 1e-6;
    const double numeric = (loss_value(kind, z + h) - loss_value(kind, z - h)) / (2 * h);
    EXPECT_NEAR(loss_derivative(kind, z), numeric, 1e-6) << "z = " << z;
  }
}

TEST_P(LossTest, DerivativeIsBoundedByOne) {
  for (double z = -50; z <= 50; z += 0.01) EXPECT_LE(std::abs(loss_derivative(GetParam(), z)), 1.0 + 1e-12);
}

// d^2l/dz^2 against central differences of dl/dz, away from the Huber kinks.
TEST_P(LossTest, SecondDerivativeMatchesFiniteDifferences) {
  const LossKind kind = GetParam();
  for (double z : {-5.0, -2.0, -0.7, 0.0, 0.3, 0.95, 1.05, 1.5, 4.0, 30.0}) {
    const double h = 1e-6;
    const double numeric = (loss_derivative(kind, z + h) - loss_derivative(kind, z - h)) / (2 * h);
    EXPECT_NEAR(loss_second_derivative(kind, z), numeric, 1e-6) << "z = " << z;
  }
}

INSTANTIATE_TEST_SUITE_P(Losses, LossTest, ::testing::Values(LossKind::Logistic, LossKind::HuberSvm));

// A NaN margin (finite weights and row overflowing to inf - inf) is margin 0:
// every per-row term stays a bounded function of the row (docs/governance.md,
// "Hostile review of 2026-11-28").
TEST(Loss, NanMarginIsTakenAsZero) {
  for (const LossKind kind : {LossKind::Logistic, LossKind::HuberSvm}) {
    EXPECT_EQ(loss_value(kind, std::nan(""), 0.1), loss_value(kind, 0.0, 0.1));
    EXPECT_EQ(loss_derivative(kind, std::nan(""), 0.1), loss_derivative(kind, 0.0, 0.1));
    EXPECT_EQ(loss_second_derivative(kind, std::nan(""), 0.1), loss_second_derivative(kind, 0.0, 0.1));
  }
}

TEST(Loss, LogisticValuesAndStability) {
  EXPECT_NEAR(loss_value(LossKind::Logistic, 0.0), std::log(2.0), 1e-15);
  EXPECT_NEAR(loss_value(LossKind::Logistic, 800.0), 0.0, 1e-300);
  EXPECT_NEAR(loss_value(LossKind::Logistic, -800.0), 800.0, 1e-9);
  EXPECT_NEAR(loss_derivative(LossKind::Logistic, 0.0), -0.5, 1e-15);
  EXPECT_TRUE(std::isfinite(loss_derivative(LossKind::Logistic, -800.0)));
}

TEST(Loss, SecondDerivativeValues) {
  // logistic: s(0) s(0) = 1/4; far out e^{-|z|} without overflow
  EXPECT_NEAR(loss_second_derivative(LossKind::Logistic, 0.0), 0.25, 1e-16);
  EXPECT_NEAR(loss_second_derivative(LossKind::Logistic, -800.0), 0.0, 1e-300);
  EXPECT_NEAR(loss_second_derivative(LossKind::Logistic, 40.0), std::exp(-40.0), 1e-30);
  // huber: 1/(2h) = 5 on [0.9, 1.1], 0 outside (h = 0.1)
  EXPECT_EQ(loss_second_derivative(LossKind::HuberSvm, 1.0, 0.1), 5.0);
  EXPECT_EQ(loss_second_derivative(LossKind::HuberSvm, 0.89, 0.1), 0.0);
  EXPECT_EQ(loss_second_derivative(LossKind::HuberSvm, 1.11, 0.1), 0.0);
}

TEST(Loss, HuberPieces) {
  const double h = 0.1;
  EXPECT_EQ(loss_value(LossKind::HuberSvm, 1.2, h), 0.0);
  EXPECT_NEAR(loss_value(LossKind::HuberSvm, 0.5, h), 0.5, 1e-15);
  // middle piece (1 + h - z)^2 / (4h) at z = 1: h^2/(4h) = h/4
  EXPECT_NEAR(loss_value(LossKind::HuberSvm, 1.0, h), 0.025, 1e-15);
  // continuity at the kinks
  EXPECT_NEAR(loss_value(LossKind::HuberSvm, 0.9 - 1e-12, h), loss_value(LossKind::HuberSvm, 0.9 + 1e-12, h), 1e-9);
  EXPECT_NEAR(loss_value(LossKind::HuberSvm, 1.1 - 1e-12, h), 0.0, 1e-9);
}

// Wu et al. 2017, §3 (Table 1): Bolt-on's constants with ||x|| <= 1, R = 1/lambda.
TEST(Loss, ConstantsOfThePapers) {
  const LossConstants convex = loss_constants(LossKind::Logistic, 1.0, 0.0, 0.0);
  EXPECT_DOUBLE_EQ(convex.lipschitz, 1.0);
  EXPECT_DOUBLE_EQ(convex.smoothness, 1.0);
  EXPECT_DOUBLE_EQ(convex.strong_convexity, 0.0);

  const double lambda = 1e-3;
  const LossConstants sc = loss_constants(LossKind::Logistic, 1.0, lambda, 1.0 / lambda);
  EXPECT_DOUBLE_EQ(sc.lipschitz, 2.0);          // L = 1 + lambda R = 2
  EXPECT_DOUBLE_EQ(sc.smoothness, 1.0 + 1e-3);  // beta = 1 + lambda
  EXPECT_DOUBLE_EQ(sc.strong_convexity, 1e-3);  // gamma = lambda

  const LossConstants huber = loss_constants(LossKind::HuberSvm, 1.0, 0.0, 0.0, 0.1);
  EXPECT_DOUBLE_EQ(huber.smoothness, 5.0);  // 1/(2h) at h = 0.1
  const LossConstants scaled = loss_constants(LossKind::Logistic, 2.0, 0.0, 0.0);
  EXPECT_DOUBLE_EQ(scaled.lipschitz, 2.0);
  EXPECT_DOUBLE_EQ(scaled.smoothness, 4.0);
}

TEST(Loss, RejectsBadParameters) {
  EXPECT_THROW(parse_loss("hinge"), Error);
  EXPECT_THROW(loss_constants(LossKind::Logistic, 0.0, 0.0, 0.0), Error);
  EXPECT_THROW(loss_constants(LossKind::Logistic, 1.0, -1.0, 0.0), Error);
  EXPECT_THROW(loss_constants(LossKind::HuberSvm, 1.0, 0.0, 0.0, 1.5), Error);
  EXPECT_EQ(parse_loss("huber_svm"), LossKind::HuberSvm);
  EXPECT_EQ(parse_loss("huber"), LossKind::HuberSvm);
}

}  // namespace
}  // namespace dptrain
