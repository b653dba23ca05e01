#include "core/privacy/rdp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/privacy/zcdp.h"

namespace dptrain::privacy {
namespace {

TEST(Rdp, ParseAndName) {
  EXPECT_EQ(parse_rdp_conversion("improved"), RdpConversion::Improved);
  EXPECT_EQ(parse_rdp_conversion("classic"), RdpConversion::Classic);
  EXPECT_EQ(rdp_conversion_name(RdpConversion::Improved), "improved");
  EXPECT_EQ(rdp_conversion_name(RdpConversion::Classic), "classic");
  EXPECT_THROW(parse_rdp_conversion("tight"), Error);
}

TEST(Rdp, ConversionFormulas) {
  // alpha = 9, RDP = 2, delta = 1e-5.
  // Classic (Mironov Prop. 3): 2 + ln(1e5) / 8 = 2 + 11.5129255 / 8 = 3.4391157.
  EXPECT_NEAR(rdp_to_dp_epsilon_at(9, 2.0, 1e-5, RdpConversion::Classic), 3.4391157, 1e-7);
  // Improved (Balle et al. Thm 21): 2 + ln(8/9) - (ln 1e-5 + ln 9) / 8
  //   = 2 - 0.1177830 - (-11.5129255 + 2.1972246) / 8 = 2 - 0.1177830 + 1.1644626 = 3.0466796.
  EXPECT_NEAR(rdp_to_dp_epsilon_at(9, 2.0, 1e-5, RdpConversion::Improved), 3.0466796, 1e-7);
  // Negative values clamp to 0: alpha = 1000, RDP = 0, delta = 0.5: classic ln 2 / 999 > 0 stays,
  // improved ln(0.999) - (ln 0.5 + ln 1000) / 999 = -0.0010005 - 0.0062208 < 0 => 0.
  EXPECT_NEAR(rdp_to_dp_epsilon_at(1000, 0.0, 0.5, RdpConversion::Classic), std::log(2.0) / 999, 1e-16);
  EXPECT_EQ(rdp_to_dp_epsilon_at(1000, 0.0, 0.5, RdpConversion::Improved), 0.0);
  EXPECT_THROW(rdp_to_dp_epsilon_at(1.0, 1.0, 1e-5, RdpConversion::Classic), Error);
  EXPECT_THROW(rdp_to_dp_epsilon_at(2.0, -1.0, 1e-5, RdpConversion::Classic), Error);
  EXPECT_THROW(rdp_to_dp_epsilon_at(2.0, 1.0, 0.0, RdpConversion::Classic), Error);
}

TEST(Rdp, ImprovedNeverWorseThanClassic) {
  for (double alpha : {1.1, 1.5, 2.0, 10.0, 100.0, 1024.0})
    for (double rdp : {0.0, 1e-6, 0.1, 10.0})
      for (double delta : {1e-3, 1e-5, 1e-12})
        EXPECT_LE(rdp_to_dp_epsilon_at(alpha, rdp, delta, RdpConversion::Improved),
                  rdp_to_dp_epsilon_at(alpha, rdp, delta, RdpConversion::Classic));
}

TEST(Rdp, MinimisesOverOrders) {
  // Curve of a Gaussian with sigma = 2 (RDP(alpha) = alpha / 8), classic conversion at delta = 1e-5:
  // alpha = 2: 0.25 + 11.5129 = 11.763; alpha = 10: 1.25 + 1.2792 = 2.5292; alpha = 11: 1.375 + 1.1513
  // = 2.5263; alpha = 12: 1.5 + 1.0466 = 2.5466. Minimum at alpha = 11.
  const std::vector<double> orders = {2, 10, 11, 12};
  std::vector<double> rdp;
  for (double a : orders) rdp.push_back(a / 8);
  const RdpEpsilon best = rdp_to_dp(orders, rdp, 1e-5, RdpConversion::Classic);
  EXPECT_EQ(best.optimal_order, 11);
  EXPECT_NEAR(best.epsilon, 1.375 + std::log(1e5) / 10, 1e-12);
  EXPECT_THROW(rdp_to_dp(orders, {1.0}, 1e-5), Error);
  EXPECT_THROW(rdp_to_dp({}, {}, 1e-5), Error);
}

TEST(Rdp, AgreesWithCksForZcdpCurves) {
  // rho-zCDP is RDP(alpha) = alpha rho; the improved conversion on a fine grid of orders must
  // approach the CKS conversion (they are the same formula) from above.
  const double rho = 0.05, delta = 1e-6;
  std::vector<double> orders, rdp;
  for (double a = 1.05; a < 200; a *= 1.001) {
    orders.push_back(a);
    rdp.push_back(a * rho);
  }
  const double on_grid = rdp_to_dp(orders, rdp, delta).epsilon;
  const double cks = zcdp_to_dp_epsilon(rho, delta, ZcdpConversion::Cks);
  EXPECT_GE(on_grid, cks - 1e-12);
  EXPECT_NEAR(on_grid, cks, 1e-6);
}

TEST(Rdp, Composition) {
  const auto total = compose_rdp({{0.1, 0.2}, {0.3, 0.4}, {0.0, 1.0}});
  EXPECT_NEAR(total[0], 0.4, 1e-15);
  EXPECT_NEAR(total[1], 1.6, 1e-15);
  EXPECT_THROW(compose_rdp({{0.1}, {0.1, 0.2}}), Error);
}

TEST(Rdp, DefaultOrders) {
  // Integers 2..64, then 64 + 16k up to 20000: 63 + 1246 orders.
  const auto orders = default_rdp_orders();
  EXPECT_NO_THROW(validate_rdp_orders(orders));
  EXPECT_TRUE(std::is_sorted(orders.begin(), orders.end()));
  EXPECT_EQ(orders.size(), 1309u);
  EXPECT_EQ(orders.front(), 2);
  EXPECT_EQ(orders.back(), 20000);
  for (double a : orders) EXPECT_EQ(a, std::floor(a)) << "fractional order " << a;
  for (double a : {2.0, 5.0, 63.0, 64.0, 80.0, 128.0, 256.0, 512.0, 1024.0, 19984.0})
    EXPECT_NE(std::find(orders.begin(), orders.end(), a), orders.end()) << a;
  EXPECT_EQ(std::find(orders.begin(), orders.end(), 65.0), orders.end());
  EXPECT_THROW(validate_rdp_orders({2, 1}), Error);
  EXPECT_THROW(validate_rdp_orders({2, NAN}), Error);
  EXPECT_THROW(validate_rdp_orders({2, 1e6}), Error);
}

TEST(Rdp, OrderFloor) {
  // ln(1/delta) / (alpha_max - 1): delta = 1e-5, alpha_max = 20000: 11.512925 / 19999 = 5.75675e-4;
  // delta = 1e-9, alpha_max = 256: 20.723266 / 255 = 0.0812677.
  EXPECT_NEAR(rdp_order_floor(20000, 1e-5), 5.75675e-4, 1e-9);
  EXPECT_NEAR(rdp_order_floor(256, 1e-9), 0.0812677, 1e-7);
  EXPECT_THROW(rdp_order_floor(256, 0), Error);
  EXPECT_THROW(rdp_order_floor(1, 1e-5), Error);
}

}  // namespace
}  // namespace dptrain::privacy
