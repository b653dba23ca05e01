#include "core/privacy/zcdp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

TEST(Zcdp, ParseAndName) {
  EXPECT_EQ(parse_zcdp_conversion("cks"), ZcdpConversion::Cks);
  EXPECT_EQ(parse_zcdp_conversion("bun-steinke"), ZcdpConversion::BunSteinke);
  EXPECT_EQ(zcdp_conversion_name(ZcdpConversion::Cks), "cks");
  EXPECT_EQ(zcdp_conversion_name(ZcdpConversion::BunSteinke), "bun-steinke");
  EXPECT_THROW(parse_zcdp_conversion("bs"), Error);
}

TEST(Zcdp, PrimitiveCosts) {
  // Gaussian: Delta = 3 (DP-AGD's C_grad), sigma = 10: rho = 9 / 200 = 0.045.
  EXPECT_NEAR(zcdp_gaussian_rho(3.0, 10.0), 0.045, 1e-17);
  EXPECT_NEAR(zcdp_gaussian_sigma(3.0, 0.045), 10.0, 1e-14);
  // Pure eps = 0.2 => rho = 0.02.
  EXPECT_NEAR(zcdp_from_pure_dp(0.2), 0.02, 1e-17);
  // DP-AGD init (Lee & Kifer 2018, Alg. 2: eps_nmax = eps / (2 splits), splits = 60; rho = eps^2 / 2, Bun–Steinke Prop. 1.4): eps_nmax = 0.1 / 120 = 8.3333e-4 => rho_nmax = 3.4722e-7.
  EXPECT_NEAR(zcdp_from_pure_dp(0.1 / 120), 3.4722e-7, 5e-12);
  // eps-bounded-range => eps^2 / 8 (Cesar & Rogers 2021): eps = 0.2 => 0.005, a quarter of the above;
  // DP-AGD's eps_nmax = 0.1 / 120 => 8.68055555556e-8.
  EXPECT_NEAR(zcdp_from_bounded_range(0.2), 0.005, 1e-18);
  EXPECT_NEAR(zcdp_from_bounded_range(0.1 / 120), 8.68055555556e-8, 1e-18);
  EXPECT_THROW(zcdp_from_bounded_range(0.0), Error);
  EXPECT_NEAR(zcdp_compose({0.01, 0.02, 0.005}), 0.035, 1e-17);
  EXPECT_THROW(zcdp_gaussian_rho(1.0, 0.0), Error);
  EXPECT_THROW(zcdp_compose({0.1, -0.01}), Error);
}

TEST(Zcdp, DpToZcdpMatchesTestVectors) {
  // (eps, delta)-DP to rho (Lee & Kifer 2018, eq. (5)). E.g. eps = 0.1, delta = 1e-8: L = ln 1e8 = 18.4206807,
  // sqrt(L + 0.1) - sqrt(L) = 4.3035661 - 4.2919320 = 0.0116341, squared 1.35350e-4.
  EXPECT_NEAR(dp_to_zcdp_rho(0.1, 1e-8), 1.35350e-4, 5e-10);
  EXPECT_NEAR(dp_to_zcdp_rho(1.6, 1e-8), 0.0333119, 5e-8);
  EXPECT_NEAR(dp_to_zcdp_rho(1.0, 1e-5), 0.0208199, 5e-8);
}

TEST(Zcdp, DpToZcdpWithCksMatchesHighPrecisionRoots) {
  // The rho with CKS(rho, delta) = eps: roots found with 40-digit mpmath (findroot of the
  // CKS optimum over alpha, itself the root of its derivative), independently of this code.
  // (0.1, 1e-8): 2.08816380942712e-4 (Bun-Steinke: 1.35350e-4, 1.54x less);
  // (1, 1e-5): 0.0305565951976396 (Bun-Steinke: 0.0208199); (1, 1e-6): 0.0243559703595384.
  EXPECT_NEAR(dp_to_zcdp_rho_cks(0.1, 1e-8) / 2.08816380942712e-4, 1.0, 1e-9);
  EXPECT_NEAR(dp_to_zcdp_rho_cks(1.0, 1e-5) / 0.0305565951976396, 1.0, 1e-9);
  EXPECT_NEAR(dp_to_zcdp_rho_cks(1.0, 1e-6) / 0.0243559703595384, 1.0, 1e-9);
  // Never infeasible: the CKS epsilon of the result is at most the target, and never
  // below the Bun-Steinke budget.
  for (const double eps : {0.01, 0.1, 1.0, 8.0})
    for (const double delta : {1e-3, 1e-6, 1e-10}) {
      const double rho = dp_to_zcdp_rho_cks(eps, delta);
      EXPECT_LE(zcdp_to_dp_epsilon(rho, delta, ZcdpConversion::Cks), eps) << eps << " " << delta;
      EXPECT_GE(rho, dp_to_zcdp_rho(eps, delta)) << eps << " " << delta;
    }
  EXPECT_THROW(dp_to_zcdp_rho_cks(0, 1e-5), Error);
  EXPECT_THROW(dp_to_zcdp_rho_cks(1, 0), Error);
}

TEST(Zcdp, DpToZcdpWithCksStaysFeasibleAtAHugeEpsilon) {
  // Where 1e-12 of epsilon exceeds CKS's gain over Bun-Steinke (epsilon > ~1e15), the result is
  // dp_to_zcdp_rho's, whose rounding put it an ulp above the exact largest rho. (1e22, 1e-10):
  // rho* = 9999999999040294817633.196 (mpmath, 140 digits), 9.999999999040295e21 was returned.
  // (1e50, 1e-5): rho* = 1e50 - 6.79e25 < 1e50, 1.0000000000000003e50 was returned.
  EXPECT_LE(dp_to_zcdp_rho_cks(1e22, 1e-10), 9.999999999040293e21);
  EXPECT_LT(dp_to_zcdp_rho_cks(1e50, 1e-5), 1e50);
}

TEST(Zcdp, BunSteinkeConversion) {
  // rho = 0.0208199, delta = 1e-5: 0.0208199 + 2 sqrt(0.0208199 * 11.5129255) = 0.0208199 + 2 * 0.4895897
  // = 0.9999993 (the inverse of the vector above).
  EXPECT_NEAR(zcdp_to_dp_epsilon(0.0208199, 1e-5, ZcdpConversion::BunSteinke), 0.99999906, 1e-7);
  EXPECT_EQ(zcdp_to_dp_epsilon(0.0, 1e-5, ZcdpConversion::BunSteinke), 0.0);
}

TEST(Zcdp, CksMatchesHighPrecisionOptimum) {
  // min over alpha > 1 of alpha rho + (ln(1/delta) + (alpha-1) ln(alpha-1) - alpha ln alpha) / (alpha-1),
  // minimised with 50-digit arithmetic (mpmath findroot on the derivative).
  struct Case { double rho, delta, epsilon; };
  for (const Case& c : {Case{0.0208199, 1e-5, 0.811820096498679}, Case{0.1, 1e-6, 2.14193892838547},
                        Case{1.0, 1e-8, 8.97721843355715}, Case{1e-4, 1e-5, 0.0450474620877772},
                        Case{5.0, 1e-3, 15.4581831660056}}) {
    EXPECT_NEAR(zcdp_to_dp_epsilon(c.rho, c.delta), c.epsilon, 1e-9 * c.epsilon) << c.rho << " " << c.delta;
  }
}

TEST(Zcdp, CksNeverWorseThanBunSteinke) {
  for (double rho : {1e-8, 1e-4, 0.01, 0.5, 3.0, 100.0}) {
    for (double delta : {0.5, 1e-3, 1e-8, 1e-15}) {
      const double cks = zcdp_to_dp_epsilon(rho, delta, ZcdpConversion::Cks);
      const double bs = zcdp_to_dp_epsilon(rho, delta, ZcdpConversion::BunSteinke);
      EXPECT_LE(cks, bs) << rho << " " << delta;
      EXPECT_GE(cks, 0.0);
      EXPECT_TRUE(std::isfinite(cks));
    }
  }
}

TEST(Zcdp, RoundTripAndMonotone) {
  for (double eps : {0.01, 0.1, 1.0, 5.0, 50.0}) {
    for (double delta : {1e-3, 1e-8, 1e-12}) {
      const double rho = dp_to_zcdp_rho(eps, delta);
      EXPECT_NEAR(zcdp_to_dp_epsilon(rho, delta, ZcdpConversion::BunSteinke) / eps, 1.0, 1e-12);
      EXPECT_LT(zcdp_to_dp_epsilon(rho, delta, ZcdpConversion::Cks), eps);
    }
  }
  double previous = 0;
  for (double rho = 1e-6; rho < 100; rho *= 1.7) {
    const double eps = zcdp_to_dp_epsilon(rho, 1e-6);
    EXPECT_GT(eps, previous) << rho;
    previous = eps;
  }
}

// Tiny rho (hostile review): the optimum order alpha - 1 = t ~ sqrt(ln(1/delta) / rho) is huge and
// t ln t - alpha ln alpha cancelled; the minimum over t picked a rounding error 8% below the bound.
TEST(Zcdp, CksAtTinyRhoIsNotBelowTheBound) {
  // 60-digit minimisation over ln t of Corollary 13 (mpmath, golden section): 5.1068438350050662e-14
  // at rho = 1e-30, delta = 1e-300 (Bun-Steinke: 2 sqrt(1e-30 * 690.78) = 5.2565e-14). Before: 4.7035e-14.
  EXPECT_NEAR(zcdp_to_dp_epsilon(1e-30, 1e-300) / 5.1068438350050662e-14, 1.0, 1e-12);
  // rho = 1e-12, delta = 1e-10: 5.3633251062601065e-6.
  EXPECT_NEAR(zcdp_to_dp_epsilon(1e-12, 1e-10) / 5.3633251062601065e-6, 1.0, 1e-12);
  // Monotone in rho and in delta on a fixed grid, never above Bun-Steinke.
  for (double delta : {1e-300, 1e-12, 1e-5}) {
    double previous = 0;
    for (double rho : {1e-30, 1e-28, 1e-26, 1e-24, 1e-22, 1e-20, 1e-16, 1e-12, 1e-8, 1e-4, 1.0, 1e4}) {
      const double eps = zcdp_to_dp_epsilon(rho, delta);
      EXPECT_GE(eps, previous) << rho << " " << delta;
      EXPECT_LE(eps, zcdp_to_dp_epsilon(rho, delta, ZcdpConversion::BunSteinke)) << rho << " " << delta;
      previous = eps;
    }
  }
}

TEST(Zcdp, RejectsBadInput) {
  EXPECT_THROW(zcdp_to_dp_epsilon(-1, 1e-5), Error);
  EXPECT_THROW(zcdp_to_dp_epsilon(0.1, 0), Error);
  EXPECT_THROW(zcdp_to_dp_epsilon(0.1, 1), Error);
  EXPECT_THROW(zcdp_to_dp_epsilon(NAN, 1e-5), Error);
  EXPECT_THROW(dp_to_zcdp_rho(0, 1e-5), Error);
  EXPECT_THROW(dp_to_zcdp_rho(1, 1.5), Error);
}

}  // namespace
}  // namespace dptrain::privacy
