// Per-example gradients of DP-SGD, clipped jointly over the K models (clipped_gradient.h),
// against hand computations.
#include "core/dpsgd/clipped_gradient.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"

namespace dptrain::dpsgd {
namespace {

const LinearModels kBinary{2, 1, LossKind::Logistic, kDefaultHuberH};

TEST(ClippedGradient, BinaryLogisticAtZero) {
  // theta = 0: z = 0, l'(0) = -1/2. Label 1 (y = +1): G = -0.5 x = (-0.3, -0.4), norm 0.5.
  const double theta[2] = {0, 0}, x[2] = {0.6, 0.8};
  double sum[2] = {0, 0};
  EXPECT_DOUBLE_EQ(add_clipped_gradient(kBinary, theta, x, 1, 1.0, sum), 0.5);
  EXPECT_DOUBLE_EQ(sum[0], -0.3);
  EXPECT_DOUBLE_EQ(sum[1], -0.4);
  // Label 0 (y = -1): s = l'(0) * (-1) = +0.5, G = (0.3, 0.4); added to the same sum.
  add_clipped_gradient(kBinary, theta, x, 0, 1.0, sum);
  EXPECT_NEAR(sum[0], 0.0, 1e-17);
  EXPECT_NEAR(sum[1], 0.0, 1e-17);
  // C = 0.1 < 0.5: scaled by 0.2 to (-0.06, -0.08).
  double clipped[2] = {0, 0};
  EXPECT_DOUBLE_EQ(add_clipped_gradient(kBinary, theta, x, 1, 0.1, clipped), 0.5);
  EXPECT_NEAR(clipped[0], -0.06, 1e-16);
  EXPECT_NEAR(clipped[1], -0.08, 1e-16);
}

// Finite weights of both signs near the double range (a hostile learning
// rate 1e307 after one lot) on the finite row (1000, 1000): w.x = inf - inf =
// NaN, and the NaN gradient made the lot "DP-SGD diverged" where a table
// without such a row trained (docs/governance.md, "Hostile review of
// 2026-11-28"). The row counts as margin 0: G = -0.5 x, clipped to C = 1.
TEST(ClippedGradient, ARowWhoseMarginOverflowsToNanAddsABoundedGradient) {
  const double theta[2] = {5e306, -5e306}, x[2] = {1000, 1000};
  double sum[2] = {0, 0};
  add_clipped_gradient(kBinary, theta, x, 1, 1.0, sum);
  EXPECT_NEAR(sum[0], -std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(sum[1], -std::sqrt(0.5), 1e-15);
}

TEST(ClippedGradient, BinaryLogisticAwayFromZero) {
  // theta = (1, 2), x = (0.6, 0.8): z = 2.2, l'(2.2) = -1 / (1 + e^2.2) = -1 / 10.0250135 = -0.0997504;
  // G = -0.0997504 x = (-0.0598502, -0.0798003), norm 0.0997504 (< C: not clipped).
  const double theta[2] = {1, 2}, x[2] = {0.6, 0.8};
  double sum[2] = {0, 0};
  EXPECT_NEAR(add_clipped_gradient(kBinary, theta, x, 1, 1.0, sum), 0.0997504, 1e-7);
  EXPECT_NEAR(sum[0], -0.0598502, 1e-7);
  EXPECT_NEAR(sum[1], -0.0798003, 1e-7);
}

TEST(ClippedGradient, HuberSvm) {
  // h = 0.1: z = 2.2 > 1 + h: zero gradient. theta = (1, 0.5): z = 0.6 + 0.4 = 1.0, in the
  // quadratic piece: l' = -(1 + h - z) / (2h) = -0.1 / 0.2 = -0.5, G = -0.5 x.
  const LinearModels huber{2, 1, LossKind::HuberSvm, 0.1};
  const double x[2] = {0.6, 0.8};
  const double far[2] = {1, 2}, near[2] = {1, 0.5};
  double sum[2] = {0, 0};
  EXPECT_EQ(add_clipped_gradient(huber, far, x, 1, 1.0, sum), 0.0);
  EXPECT_EQ(sum[0], 0.0);
  EXPECT_NEAR(add_clipped_gradient(huber, near, x, 1, 1.0, sum), 0.5, 1e-15);
  EXPECT_NEAR(sum[0], -0.3, 1e-15);
  EXPECT_NEAR(sum[1], -0.4, 1e-15);
}

TEST(ClippedGradient, OneVsAllIsClippedJointly) {
  // K = 3, theta = 0, x = (0.6, 0.8), class 1: s_k = l'(0) y_k = (0.5, -0.5, 0.5), so
  // ||G||_F = ||x|| sqrt(3 * 0.25) = 0.8660254. C = 0.5: every row scaled by 0.5 / 0.8660254 =
  // 0.5773503: row 0 = 0.5 * 0.5773503 * x = (0.1732051, 0.2309401), row 1 its negative, row 2 = row 0.
  // The clipped matrix has Frobenius norm exactly C: one clip for all K models.
  const LinearModels ova{2, 3, LossKind::Logistic, kDefaultHuberH};
  const double theta[6] = {0, 0, 0, 0, 0, 0}, x[2] = {0.6, 0.8};
  double sum[6] = {0, 0, 0, 0, 0, 0};
  EXPECT_NEAR(add_clipped_gradient(ova, theta, x, 1, 0.5, sum), 0.8660254, 1e-7);
  const double expected[6] = {0.1732051, 0.2309401, -0.1732051, -0.2309401, 0.1732051, 0.2309401};
  double norm2 = 0;
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(sum[i], expected[i], 1e-7) << i;
    norm2 += sum[i] * sum[i];
  }
  EXPECT_NEAR(std::sqrt(norm2), 0.5, 1e-15);
}

TEST(ClippedGradient, NeverExceedsTheClipNorm) {
  // The sensitivity argument: whatever the row and the models, one row adds at most C.
  privacy::RandomSource rng = privacy::RandomSource::seeded(5);
  const LinearModels ova{7, 4, LossKind::Logistic, kDefaultHuberH};
  std::vector<double> theta(28), x(7), sum(28);
  for (int trial = 0; trial < 2000; ++trial) {
    privacy::fill_standard_normal(rng, theta.data(), theta.size());
    privacy::fill_standard_normal(rng, x.data(), x.size());
    for (double& v : theta) v *= 5;
    std::fill(sum.begin(), sum.end(), 0.0);
    const double clip = 0.01 + 2 * rng.uniform_open01();
    add_clipped_gradient(ova, theta.data(), x.data(), static_cast<int>(rng.uniform_below(4)), clip, sum.data());
    double norm2 = 0;
    for (double v : sum) norm2 += v * v;
    ASSERT_LE(std::sqrt(norm2), clip * (1 + 1e-14)) << trial;
  }
}

TEST(ClippedGradient, RejectsLabelsOutOfRange) {
  const double theta[6] = {}, x[2] = {0.6, 0.8};
  double sum[6] = {};
  EXPECT_THROW(add_clipped_gradient(kBinary, theta, x, 2, 1.0, sum), Error);
  EXPECT_THROW(add_clipped_gradient(kBinary, theta, x, -1, 1.0, sum), Error);
  const LinearModels ova{2, 3, LossKind::Logistic, kDefaultHuberH};
  EXPECT_THROW(add_clipped_gradient(ova, theta, x, 3, 1.0, sum), Error);
  EXPECT_NO_THROW(add_clipped_gradient(ova, theta, x, 2, 1.0, sum));
}

}  // namespace
}  // namespace dptrain::dpsgd
