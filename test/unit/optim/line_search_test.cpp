#include "core/optim/line_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"

namespace dptrain::optim {
namespace {

Evaluation at(double value, Eigen::Vector2d gradient, double value_error = 0) {
  Evaluation e;
  e.value = value;
  e.gradient = gradient;
  e.value_error = value_error;
  return e;
}

// F(x) = x'x/2 from x = (1, 0) along p = -x: Armijo accepts the full step.
TEST(Backtracking, ArmijoAcceptsADecrease) {
  Backtracking b;
  b.start(Eigen::Vector2d(1, 0), at(0.5, {1, 0}), Eigen::Vector2d(-1, 0), 1.0);
  EXPECT_EQ(b.trial(), Eigen::Vector2d(0, 0));
  EXPECT_EQ(b.judge(at(0.0, {0, 0})), Backtracking::Verdict::Accept);
  EXPECT_EQ(b.drowned_accepts(), 0);
}

// Too long a step: F rises, the step shrinks by quadratic interpolation
// (F(t) = (1 - 3t)^2/2 along p = (-3, 0): minimum at t = 1/3, clamped to
// [0.1, 0.5] of the trial step).
TEST(Backtracking, ShrinksByInterpolation) {
  Backtracking b;
  b.start(Eigen::Vector2d(1, 0), at(0.5, {1, 0}), Eigen::Vector2d(-3, 0), 1.0);
  EXPECT_EQ(b.judge(at(2.0, {-2, 0})), Backtracking::Verdict::Retry);
  EXPECT_NEAR(b.step(), 1.0 / 3.0, 1e-15);  // -slope t^2 / (2 (F(t) - F(0) - slope t)) = 3 / (2 * 4.5)
  EXPECT_EQ(b.judge(at(0.0, {0, 0})), Backtracking::Verdict::Accept);
}

// Rule (b): the predicted decrease (1e-20) is far below F's rounding error;
// F rounds one ulp up, the gradient shrinks: accepted. The same F with a
// larger gradient, or an F beyond the rounding error, is not.
TEST(Backtracking, AcceptsOnTheGradientWhereFIsNoise) {
  const double ulp = std::nextafter(1.0, 2.0) - 1.0;
  for (int variant = 0; variant < 3; ++variant) {
    Backtracking b;
    b.start(Eigen::Vector2d(0, 0), at(1.0, {1e-10, 0}, 1e-15), Eigen::Vector2d(-1e-10, 0), 1.0);
    if (variant == 0) {
      EXPECT_EQ(b.judge(at(1.0 + ulp, {1e-15, 0}, 1e-15)), Backtracking::Verdict::Accept);
      EXPECT_EQ(b.drowned_accepts(), 1);
    } else if (variant == 1) {
      EXPECT_EQ(b.judge(at(1.0 + ulp, {2e-10, 0}, 1e-15)), Backtracking::Verdict::Retry);
      EXPECT_DOUBLE_EQ(b.step(), 0.5);  // halving: F's differences are noise
    } else {
      EXPECT_EQ(b.judge(at(1.0 + 1e-12, {1e-15, 0}, 1e-15)), Backtracking::Verdict::Retry);
    }
  }
}

// Not drowned (predicted decrease 0.5 >> error): the gradient rule does not apply.
TEST(Backtracking, GradientRuleOnlyWhenDrowned) {
  Backtracking b;
  b.start(Eigen::Vector2d(1, 0), at(0.5, {1, 0}, 1e-15), Eigen::Vector2d(-1, 0), 1.0);
  EXPECT_EQ(b.judge(at(0.5, {0.1, 0}, 1e-15)), Backtracking::Verdict::Retry);
}

TEST(Backtracking, OverflowShrinksTenfoldAndEventuallySticks) {
  Backtracking b;
  b.start(Eigen::Vector2d(1, 0), at(0.5, {1, 0}), Eigen::Vector2d(-1, 0), 1.0);
  const Evaluation overflow = at(std::numeric_limits<double>::infinity(), {0, 0});
  EXPECT_EQ(b.judge(overflow), Backtracking::Verdict::Retry);
  EXPECT_NEAR(b.step(), 0.1, 1e-17);
  Backtracking::Verdict v = Backtracking::Verdict::Retry;
  for (int i = 0; i < 20 && v == Backtracking::Verdict::Retry; ++i) v = b.judge(overflow);
  EXPECT_EQ(v, Backtracking::Verdict::Stuck);
}

TEST(Backtracking, RefusesAnAscentDirection) {
  Backtracking b;
  EXPECT_THROW(b.start(Eigen::Vector2d(1, 0), at(0.5, {1, 0}), Eigen::Vector2d(1, 0), 1.0), Error);
}

}  // namespace
}  // namespace dptrain::optim
