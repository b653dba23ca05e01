// The step caps' messages: a cap that six digits would print like the refused step is printed in
// full (2/beta just below 1 when the rows' bound is sqrt(2), as with an intercept on rows of norm 1).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/privacy/parameter_checks.h"

namespace dptrain::privacy {
namespace {

std::string refusal(double eta, double beta, bool strongly_convex) {
  try {
    strongly_convex ? require_strongly_convex_step(eta, beta) : require_convex_step(eta, beta);
  } catch (const Error& e) {
    return std::string(e.what()) + " | " + e.hint();
  }
  return "accepted";
}

TEST(ParameterChecks, ConvexStepAtTheCapIsAccepted) {
  EXPECT_EQ(refusal(0.4, 5.0, false), "accepted");
  EXPECT_EQ(refusal(1.0, 2.0, false), "accepted");
}

TEST(ParameterChecks, CapsFarFromTheStepKeepSixDigits) {
  EXPECT_EQ(refusal(1.0, 5.0, false),
            "learning_rate 1 is larger than 2/beta = 0.4: the convex Bolt-on bound (Lemma 1) needs eta <= 2/beta"
            " | Use learning_rate <= 0.4 (beta = 5 is the smoothness of the loss).");
}

TEST(ParameterChecks, ACapJustBelowTheStepByRoundingIsPrintedInFull) {
  const double bound = std::hypot(1.0, 1.0);  // sqrt(2), rounded up: its square is above 2
  const double beta = bound * bound;          // a smoothness of R^2 with R = sqrt(2): just above 2
  ASSERT_GT(beta, 2.0);
  const std::string convex = refusal(1.0, beta, false);
  EXPECT_NE(convex.find("learning_rate 1 is larger than 2/beta = 0.99999999999999978"), std::string::npos) << convex;
  EXPECT_NE(convex.find("Use learning_rate <= 0.99999999999999978"), std::string::npos) << convex;
  const std::string strongly = refusal(0.5, beta, true);
  EXPECT_NE(strongly.find("learning_rate 0.5 is larger than 1/beta = 0.49999999999999989"), std::string::npos)
      << strongly;
}

}  // namespace
}  // namespace dptrain::privacy
