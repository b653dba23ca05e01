#include "core/privacy/audit_statistics.h"

#include <gtest/gtest.h>

#include <boost/math/distributions/binomial.hpp>
#include <cmath>

#include "core/error.h"

namespace dptrain::privacy::audit {
namespace {

// Reference values: bisection on the exact binomial CDF (sum of C(n,i) p^i (1-p)^(n-i)
// in log space) to 1e-12, computed independently of Boost's incomplete beta.
TEST(ClopperPearson, TextbookInterval) {
  // k = 5 of n = 10, two-sided 95%: [0.187086028, 0.812913972] (each side at 2.5%).
  EXPECT_NEAR(clopper_pearson_lower(5, 10, 0.025), 0.187086028, 1e-9);
  EXPECT_NEAR(clopper_pearson_upper(5, 10, 0.025), 0.812913972, 1e-9);
}

TEST(ClopperPearson, ClosedFormsAtTheEnds) {
  // k = 0: P[Bin(n, p) <= 0] = (1 - p)^n = alpha  =>  p = 1 - alpha^(1/n).
  EXPECT_NEAR(clopper_pearson_upper(0, 10, 0.05), 1 - std::pow(0.05, 0.1), 1e-12);  // 0.258865551
  EXPECT_NEAR(clopper_pearson_upper(0, 10, 0.05), 0.258865551, 1e-9);
  // k = n: P[Bin(n, p) >= n] = p^n = alpha  =>  p = alpha^(1/n).
  EXPECT_NEAR(clopper_pearson_lower(10, 10, 0.05), std::pow(0.05, 0.1), 1e-12);
  EXPECT_EQ(clopper_pearson_upper(10, 10, 0.05), 1.0);
  EXPECT_EQ(clopper_pearson_lower(0, 10, 0.05), 0.0);
}

TEST(ClopperPearson, DefiningPropertyHolds) {
  // The upper bound p_u solves P[Bin(n, p_u) <= k] = alpha.
  for (int n : {7, 100, 5000})
    for (int k : {0, 1, n / 3, n - 1}) {
      const double pu = clopper_pearson_upper(k, n, 0.01);
      EXPECT_NEAR(cdf(boost::math::binomial_distribution<>(n, pu), k), 0.01, 1e-9) << n << " " << k;
      if (k > 0) {
        const double pl = clopper_pearson_lower(k, n, 0.01);
        EXPECT_NEAR(cdf(complement(boost::math::binomial_distribution<>(n, pl), k - 1)), 0.01, 1e-9);
        EXPECT_LT(pl, static_cast<double>(k) / n);
      }
      EXPECT_GT(pu, static_cast<double>(k) / n);
    }
}

TEST(ClopperPearson, RejectsBadCounts) {
  EXPECT_THROW(clopper_pearson_upper(-1, 10, 0.05), Error);
  EXPECT_THROW(clopper_pearson_upper(11, 10, 0.05), Error);
  EXPECT_THROW(clopper_pearson_upper(0, 0, 0.05), Error);
  EXPECT_THROW(clopper_pearson_upper(1, 10, 0), Error);
  EXPECT_THROW(clopper_pearson_lower(1, 10, 1), Error);
}

TEST(EpsilonLowerBound, HandComputedValue) {
  // FN = 500 of 1000 runs on D, FP = 100 of 1000 runs on D', alpha = 0.05 (2.5% per rate):
  //   FNR_u = 0.531450827, FPR_u = 0.120287937 (bisection reference, see above)
  //   eps >= ln((1 - 0.531450827) / 0.120287937) = 1.359752715      (delta = 0)
  //   eps >= ln((1 - 1e-5 - 0.531450827) / 0.120287937) = 1.359731372 (delta = 1e-5)
  // The other order, ln((1 - FPR_u)/FNR_u) = 0.504, is smaller.
  const ErrorCounts c{500, 1000, 100, 1000};
  const EpsilonLowerBound b = epsilon_lower_bound(c, 0.0, 0.05);
  EXPECT_NEAR(b.fnr_upper, 0.531450827, 1e-9);
  EXPECT_NEAR(b.fpr_upper, 0.120287937, 1e-9);
  EXPECT_NEAR(b.epsilon, 1.359752715, 1e-8);
  EXPECT_NEAR(epsilon_lower_bound(c, 1e-5, 0.05).epsilon, 1.359731372, 1e-8);
  // Point estimate: ln((1 - 0.5) / 0.1) = ln 5.
  EXPECT_NEAR(b.point_estimate, std::log(5.0), 1e-12);
}

TEST(EpsilonLowerBound, SymmetricInTheTwoErrorTypes) {
  const EpsilonLowerBound a = epsilon_lower_bound({500, 1000, 100, 1000}, 0.0, 0.05);
  const EpsilonLowerBound b = epsilon_lower_bound({100, 1000, 500, 1000}, 0.0, 0.05);
  EXPECT_DOUBLE_EQ(a.epsilon, b.epsilon);
}

TEST(EpsilonLowerBound, UselessTestsGiveZero) {
  // A coin flip (FNR = FPR = 1/2) shows nothing; neither does a test that is always wrong.
  EXPECT_EQ(epsilon_lower_bound({500, 1000, 500, 1000}, 0.0, 0.05).epsilon, 0.0);
  EXPECT_EQ(epsilon_lower_bound({1000, 1000, 1000, 1000}, 0.0, 0.05).epsilon, 0.0);
  // A perfect test on 1000 runs each bounds epsilon by ln((1 - u)/u), u = 1 - 0.025^(1/1000),
  // never by infinity: ln(0.99631789 / 0.00368211) = 5.6005.
  const double u = 1 - std::pow(0.025, 1e-3);
  EXPECT_NEAR(epsilon_lower_bound({0, 1000, 0, 1000}, 0.0, 0.05).epsilon, std::log((1 - u) / u), 1e-9);
  // delta eats into the numerator: with delta >= 1 - FNR_u nothing is shown.
  EXPECT_EQ(epsilon_lower_bound({900, 1000, 0, 1000}, 0.2, 0.05).epsilon, 0.0);
}

}  // namespace
}  // namespace dptrain::privacy::audit
