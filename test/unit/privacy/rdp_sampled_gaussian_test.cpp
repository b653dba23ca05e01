#include "core/privacy/rdp_sampled_gaussian.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

std::vector<double> integer_orders(int lo, int hi) {
  std::vector<double> orders;
  for (int a = lo; a <= hi; ++a) orders.push_back(a);
  return orders;
}

// TF Privacy's compute_dp_sgd_privacy grid.
std::vector<double> tf_privacy_orders() {
  std::vector<double> orders = {1.25, 1.5, 1.75, 2., 2.25, 2.5, 3., 3.5, 4., 4.5};
  for (int a = 5; a < 64; ++a) orders.push_back(a);
  for (double a : {128, 256, 512}) orders.push_back(a);
  return orders;
}

RdpOptions options(std::vector<double> orders, RdpConversion conversion) {
  RdpOptions o;
  o.orders = std::move(orders);
  o.conversion = conversion;
  return o;
}

TEST(SampledGaussianRdp, SmallOrdersByHand) {
  // alpha = 2: A = (1-q)^2 + 2q(1-q) + q^2 e^{1/s^2} = 1 + q^2 (e^{1/s^2} - 1).
  // q = 0.01, s = 4: e^{1/16} - 1 = 0.06449446, A - 1 = 6.449446e-6, ln A = 6.4494251e-6.
  EXPECT_NEAR(sampled_gaussian_rdp(0.01, 4, 2), 6.4494250941992096e-6, 1e-19);
  // alpha = 3: A = 1 + 3 q^2 (1-q)(e^{1/s^2} - 1) + q^3 (e^{3/s^2} - 1)
  //   = 1 + 3e-4 * 0.99 * 0.06449446 + 1e-6 * 0.20622683 = 1 + 1.9155e-5 + 2.0623e-7 = 1 + 1.93611e-5;
  //   RDP = ln A / 2 = 9.68045e-6.
  EXPECT_NEAR(sampled_gaussian_rdp(0.01, 4, 3), 9.6804485623234684e-6, 1e-18);
  // Tiny q keeps full relative precision: q = 1e-6, s = 1, alpha = 2: q^2 (e - 1) = 1.7182818e-12.
  EXPECT_NEAR(sampled_gaussian_rdp(1e-6, 1, 2) / 1.7182818284575688e-12, 1.0, 1e-12);
}

// Almost no noise is not free (hostile review). Before, the log-sum-exp of the binomial terms kept
// only terms > max - 60, and above 2^59 max - 60 rounds to max: every term was dropped, ln 0 = -inf,
// RDP 0, and sigma = 1e-10 "cost" the order floor, epsilon = 3.05e-5 at delta = 1e-5.
TEST(SampledGaussianRdp, AlmostNoNoiseIsNotFree) {
  // alpha = 2: ln A = ln(1 + q^2 expm1(1/s^2)) = 1/s^2 + 2 ln q to rounding = 1e20 - 9.2.
  EXPECT_NEAR(sampled_gaussian_rdp(0.01, 1e-10, 2) / 1e20, 1.0, 1e-12);
  // alpha = 20000, s = 1e-5: the k = alpha term dominates, ln(q^a e^{a(a-1)/(2 s^2)}) / (a - 1)
  //   = a / (2 s^2) + a ln q / (a - 1) = 20000 * 5e9 - 4.6 = 1e14 (before: 0).
  EXPECT_NEAR(sampled_gaussian_rdp(0.01, 1e-5, 20000) / 1e14, 1.0, 1e-12);
  // The best order is 2: epsilon = 1e20 + ln(1/2) - ln(2 delta) >= 1e20.
  EXPECT_GE(sampled_gaussian_epsilon(0.01, 1e-10, 1, 1e-5).epsilon, 1e20 * (1 - 1e-12));
  EXPECT_GE(sampled_gaussian_epsilon(1e-12, 1e-10, 1000000000, 1e-5).epsilon, 1e20);
  // Below double range the RDP is infinite (before: an error about a NaN RDP value).
  EXPECT_EQ(sampled_gaussian_rdp(0.01, 1e-300, 2), std::numeric_limits<double>::infinity());
  EXPECT_EQ(sampled_gaussian_epsilon(0.01, 1e-300, 1, 1e-5).epsilon, std::numeric_limits<double>::infinity());
}

TEST(SampledGaussianRdp, IntegerOrdersMatchExactBinomialSum) {
  // sum_k C(a,k)(1-q)^(a-k) q^k e^{(k^2-k)/(2s^2)} with 50-digit arithmetic (mpmath).
  struct Case { double q, sigma, order, rdp; };
  for (const Case& c : {Case{256.0 / 60000, 1.1, 9, 1.116472651551087e-4},
                        Case{1e-6, 100, 1024, 5.1202565318668681e-14}, Case{1e-6, 0.3, 1024, 5675.0598734330189},
                        Case{0.5, 0.3, 64, 354.85140603879627}}) {
    EXPECT_NEAR(sampled_gaussian_rdp(c.q, c.sigma, c.order) / c.rdp, 1.0, 1e-12)
        << c.q << " " << c.sigma << " " << c.order;
  }
}

TEST(SampledGaussianRdp, FractionalOrdersMatchNumericalIntegration) {
  // ln E_{z~N(0,s^2)}[((1-q) + q e^{(2z-1)/(2s^2)})^a] / (a-1) by 40-digit quadrature (mpmath).
  // The series result is an upper bound (tail bound + rounding margin), within 1e-7 relative.
  struct Case { double q, sigma, order, rdp; };
  for (const Case& c : {Case{0.01, 4, 1.1, 3.545104682934415e-6}, Case{0.01, 4, 1.5, 4.835493175633189e-6},
                        Case{0.01, 4, 10.5, 3.404848416848245e-5}, Case{0.5, 0.5, 1.1, 0.7926317795715203},
                        Case{0.5, 0.5, 1.5, 1.495590849676597}, Case{0.5, 0.5, 4.5, 8.108811837042979},
                        Case{0.5, 0.5, 10.5, 20.23388995832848}}) {
    const double rdp = sampled_gaussian_rdp(c.q, c.sigma, c.order);
    EXPECT_NEAR(rdp / c.rdp, 1.0, 1e-7) << c.q << " " << c.sigma << " " << c.order;
    EXPECT_GE(rdp, c.rdp * (1 - 1e-13)) << c.q << " " << c.sigma << " " << c.order;
  }
}

TEST(SampledGaussianRdp, FullBatchIsTheGaussian) {
  // q = 1: RDP(alpha) = alpha / (2 sigma^2) (Mironov 2017, Prop. 7), e.g. alpha = 10, sigma = 2: 1.25.
  EXPECT_DOUBLE_EQ(sampled_gaussian_rdp(1.0, 2.0, 10), 1.25);
  for (double sigma : {0.5, 1.1, 4.0})
    for (double alpha : {1.5, 2.0, 7.0, 32.5, 256.0}) {
      EXPECT_DOUBLE_EQ(sampled_gaussian_rdp(1.0, sigma, alpha), alpha / (2 * sigma * sigma));
      // ... and the series converge to it as q -> 1.
      EXPECT_NEAR(sampled_gaussian_rdp(1 - 1e-9, sigma, alpha) / (alpha / (2 * sigma * sigma)), 1.0, 1e-6)
          << sigma << " " << alpha;
    }
}

TEST(SampledGaussianRdp, NondecreasingInOrderAcrossIntegerAndFractional) {
  // Renyi divergence is non-decreasing in alpha: interleaving the two code paths must keep order.
  for (double q : {1e-4, 0.01, 0.3})
    for (double sigma : {0.7, 1.5, 8.0}) {
      double previous = 0;
      for (double alpha : {1.1, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 7.5, 8.0, 20.5, 21.0}) {
        const double rdp = sampled_gaussian_rdp(q, sigma, alpha);
        EXPECT_GE(rdp, previous * (1 - 1e-9)) << q << " " << sigma << " " << alpha;
        previous = rdp;
      }
    }
}

TEST(SampledGaussianRdp, Section13TestVectors) {
  // Mironov et al. 2019 (sampled Gaussian RDP), integer orders 2..256, delta = 1e-5; values computed by hand.
  const auto orders = integer_orders(2, 256);
  const double q1 = 256.0 / 60000;
  EXPECT_NEAR(sampled_gaussian_epsilon(q1, 1.1, 14062, 1e-5, options(orders, RdpConversion::Classic)).epsilon,
              3.0091, 5e-5);
  EXPECT_NEAR(sampled_gaussian_epsilon(q1, 1.1, 14062, 1e-5, options(orders, RdpConversion::Improved)).epsilon,
              2.5970, 5e-5);
  EXPECT_NEAR(sampled_gaussian_epsilon(0.01, 4, 10000, 1e-5, options(orders, RdpConversion::Classic)).epsilon,
              1.2586, 5e-5);
  EXPECT_NEAR(sampled_gaussian_epsilon(0.01, 4, 10000, 1e-5, options(orders, RdpConversion::Improved)).epsilon,
              1.0355, 5e-5);
}

TEST(SampledGaussianRdp, TfPrivacyPublishedValues) {
  // The well-known MNIST tutorial value: q = 256/60000, sigma = 1.1, 60 epochs = 14062 steps,
  // delta = 1e-5 => eps = 3.01 with the classic conversion on TF Privacy's grid (optimal order 9).
  const RdpEpsilon mnist = sampled_gaussian_epsilon(256.0 / 60000, 1.1, 14062, 1e-5,
                                                    options(tf_privacy_orders(), RdpConversion::Classic));
  EXPECT_NEAR(mnist.epsilon, 3.01, 0.005);
  EXPECT_EQ(mnist.optimal_order, 9);
  // TF Privacy compute_dp_sgd_privacy_test (improved conversion, same grid):
  // n = 60000, batch 150, sigma 1.3, 15 epochs (6000 steps), delta 1e-5 => 0.7242234026109595, order 19;
  // n = 100000, batch 100, sigma 1.0, 30 epochs (30000 steps), delta 1e-7 => 1.4154988495444842, order 13.
  const auto tf = options(tf_privacy_orders(), RdpConversion::Improved);
  const RdpEpsilon a = sampled_gaussian_epsilon(150.0 / 60000, 1.3, 6000, 1e-5, tf);
  EXPECT_NEAR(a.epsilon, 0.7242234026109595, 1e-9);
  EXPECT_EQ(a.optimal_order, 19);
  const RdpEpsilon b = sampled_gaussian_epsilon(100.0 / 100000, 1.0, 30000, 1e-7, tf);
  EXPECT_NEAR(b.epsilon, 1.4154988495444842, 1e-9);
  EXPECT_EQ(b.optimal_order, 13);
}

TEST(SampledGaussianRdp, DefaultGridNoWorseThanTfIntegerOrders) {
  // The default grid (integers 2..64, 64 + 16k up to 20000) contains the integer orders of
  // TF Privacy's grid, so it can only find a smaller epsilon than those.
  std::vector<double> tf_integers;
  for (double a : tf_privacy_orders())
    if (a == std::floor(a)) tf_integers.push_back(a);
  for (double sigma : {0.6, 1.1, 5.0, 50.0}) {
    const double tf = sampled_gaussian_epsilon(1e-3, sigma, 10000, 1e-5, options(tf_integers,
                                                                                 RdpConversion::Improved)).epsilon;
    EXPECT_LE(sampled_gaussian_epsilon(1e-3, sigma, 10000, 1e-5).epsilon, tf) << sigma;
  }
  // Small q, large sigma: the optimum is beyond TF's 512.
  EXPECT_GT(sampled_gaussian_epsilon(1e-5, 50, 1000, 1e-5).optimal_order, 512);
}

TEST(SampledGaussianRdp, Section13OrderFloorVectors) {
  // Mironov et al. 2019 (sampled Gaussian RDP): q = 50/36176, z = 80.1, T = 1000, delta = 1/36176^2.
  // Orders 2..512 are floored: at order 512 the conversion alone costs ln(36176^2)/511 = 0.041081,
  // and the total is 0.04116 (classic). Orders up to 20000 certify 0.00354 (classic) and
  // 0.00255 (improved).
  const double q = 50.0 / 36176, delta = 1.0 / (36176.0 * 36176.0);
  const RdpEpsilon floored =
      sampled_gaussian_epsilon(q, 80.1, 1000, delta, options(integer_orders(2, 512), RdpConversion::Classic));
  EXPECT_NEAR(floored.epsilon, 0.04116, 5e-6);
  EXPECT_EQ(floored.optimal_order, 512);
  EXPECT_NEAR(std::log(1 / delta) / 511, 0.041081, 1e-6);
  const RdpEpsilon classic =
      sampled_gaussian_epsilon(q, 80.1, 1000, delta, options(default_rdp_orders(), RdpConversion::Classic));
  const RdpEpsilon improved = sampled_gaussian_epsilon(q, 80.1, 1000, delta);
  EXPECT_NEAR(classic.epsilon, 0.00354, 5e-6);
  EXPECT_NEAR(improved.epsilon, 0.00255, 5e-6);
  EXPECT_LT(classic.optimal_order, 20000);  // an interior optimum: no longer floored
  EXPECT_GT(classic.optimal_order, 512);
}

TEST(SampledGaussianRdp, Section13ClosedFormPsgdIsNotPrivate) {
  // The AMP paper's P-SGD noise for a claimed eps = 0.1 (T = 100, q = 50/36176, delta =
  // 1/36176^2): z = 4 q sqrt(T ln(1/delta)) / eps = 4 * 0.00138213 * sqrt(100 * 20.9839) / 0.1
  // = 2.53303. The RDP accountant says that noise is only 0.267 (classic) / 0.199 (improved).
  const double q = 50.0 / 36176, delta = 1.0 / (36176.0 * 36176.0);
  const double z = 4 * q * std::sqrt(100 * std::log(1 / delta)) / 0.1;
  EXPECT_NEAR(z, 2.533, 5e-4);
  EXPECT_NEAR(sampled_gaussian_epsilon(q, z, 100, delta, options(default_rdp_orders(), RdpConversion::Classic)).epsilon,
              0.267, 5e-4);
  EXPECT_NEAR(sampled_gaussian_epsilon(q, z, 100, delta).epsilon, 0.199, 5e-4);
}

TEST(SampledGaussianRdp, SkippingOrdersKeepsTheGridMinimum) {
  // sampled_gaussian_epsilon skips orders that provably cannot win; its answer must be the
  // minimum over the whole curve. Optima from order 2 (q = 1, sigma 0.7) to the thousands
  // (q = 1e-4, sigma 80).
  const std::vector<double> orders = default_rdp_orders();
  for (auto [q, sigma] : {std::pair<double, double>{1e-4, 80.0}, {250.0 / 30162, 1.3}, {0.05, 6.0}, {1.0, 0.7},
                          {0.3, 0.8}}) {
    const auto curve = sampled_gaussian_rdp_curve(q, sigma, 1000, orders);
    for (auto conversion : {RdpConversion::Classic, RdpConversion::Improved})
      for (auto adjacency : {Adjacency::AddRemoveOne, Adjacency::ReplaceOne}) {
        RdpOptions o;
        o.conversion = conversion;
        o.adjacency = adjacency;
        RdpEpsilon full;
        if (adjacency == Adjacency::ReplaceOne) {
          const auto converted = rdp_add_remove_to_replace_one(orders, curve);
          full = rdp_to_dp(converted.first, converted.second, 1e-6, conversion);
        } else {
          full = rdp_to_dp(orders, curve, 1e-6, conversion);
        }
        const RdpEpsilon fast = sampled_gaussian_epsilon(q, sigma, 1000, 1e-6, o);
        EXPECT_NEAR(fast.epsilon, full.epsilon, 1e-12 * full.epsilon) << q << " " << sigma;
        EXPECT_EQ(fast.optimal_order, full.optimal_order) << q << " " << sigma;
      }
  }
}

TEST(SampledGaussianRdp, MonotoneInSigmaRateAndSteps) {
  double previous = INFINITY;
  for (double sigma = 0.3; sigma <= 100; sigma *= 1.25) {
    const double eps = sampled_gaussian_epsilon(0.01, sigma, 1000, 1e-5).epsilon;
    EXPECT_LT(eps, previous) << sigma;
    previous = eps;
  }
  previous = 0;
  for (double q = 1e-6; q <= 1; q *= 3) {
    const double eps = sampled_gaussian_epsilon(q, 1.0, 1000, 1e-5).epsilon;
    EXPECT_GT(eps, previous) << q;
    previous = eps;
  }
  previous = 0;
  for (std::int64_t steps = 1; steps <= 1000000; steps *= 4) {
    const double eps = sampled_gaussian_epsilon(0.001, 1.0, steps, 1e-5).epsilon;
    EXPECT_GT(eps, previous) << steps;
    previous = eps;
  }
}

TEST(SampledGaussianRdp, StableAtExtremes) {
  // q down to 1e-6, sigma 0.3..100, up to 1e6 steps, orders to 20000, delta down to 1e-12: finite,
  // non-negative, and monotone along every axis of the grid.
  const double qs[] = {1e-6, 1e-3, 0.1, 1.0};
  const double sigmas[] = {0.3, 1.0, 10.0, 100.0};
  const std::int64_t steps[] = {1, 1000, 1000000};
  const double deltas[] = {1e-5, 1e-12};
  double eps[4][4][3][2];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 2; ++d) {
          eps[a][b][c][d] = sampled_gaussian_epsilon(qs[a], sigmas[b], steps[c], deltas[d]).epsilon;
          ASSERT_TRUE(std::isfinite(eps[a][b][c][d]) && eps[a][b][c][d] >= 0) << a << b << c << d;
        }
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 2; ++d) {
          if (a > 0) {
            EXPECT_GE(eps[a][b][c][d], eps[a - 1][b][c][d]) << "q " << a << b << c << d;
          }
          if (b > 0) {
            EXPECT_LE(eps[a][b][c][d], eps[a][b - 1][c][d]) << "sigma " << a << b << c << d;
          }
          if (c > 0) {
            EXPECT_GE(eps[a][b][c][d], eps[a][b][c - 1][d]) << "steps " << a << b << c << d;
          }
          if (d > 0) {
            EXPECT_GE(eps[a][b][c][d], eps[a][b][c][d - 1]) << "delta " << a << b << c << d;
          }
        }
  // Individual orders stay finite at the far corner too.
  for (double alpha : {1.1, 1.5, 2.0, 1024.0, 20000.0}) {
    EXPECT_TRUE(std::isfinite(sampled_gaussian_rdp(1e-6, 100, alpha)));
    EXPECT_TRUE(std::isfinite(sampled_gaussian_rdp(0.999, 0.3, alpha)));
  }
}

// Monotone in sigma down to almost no noise (hostile review: below sigma ~ 1.4e-5 the binomial
// log-sum-exp dropped every term and epsilon fell back to the order floor, 3e-5, less than at
// sigma = 0.03). Fixed grid; each epsilon at least the previous, and at sigma 1e-12 at least
// T (1/sigma^2 + 2 ln q) (order 2, by hand).
TEST(SampledGaussianRdp, MonotoneDownToAlmostNoNoise) {
  const double sigmas[] = {10.0, 1.0, 0.3, 0.03, 1e-3, 1e-5, 1e-8, 1e-12};
  for (double q : {1e-6, 0.01, 0.5, 1.0})
    for (std::int64_t steps : {std::int64_t{1}, std::int64_t{1000000000}}) {
      double previous = 0;
      for (double sigma : sigmas) {
        const double eps = sampled_gaussian_epsilon(q, sigma, steps, 1e-5).epsilon;
        EXPECT_GE(eps, previous) << q << " " << steps << " " << sigma;
        previous = eps;
      }
      EXPECT_GE(previous, static_cast<double>(steps) * (1e24 + 2 * std::log(q)) * (1 - 1e-12)) << q << " " << steps;
    }
}

// The inverse at the edges: q tiny or 1, one step or 1e9, delta subnormal or near 1, epsilon
// ordinary or huge. The returned sigma re-accounts to at most the target, and 1e-7 less noise
// exceeds it (the search returned the noisier end of a bracket that really brackets).
TEST(SampledGaussianRdp, InverseAtTheEdgesSatisfiesItsTarget) {
  for (double q : {1e-12, 0.01, 1.0})
    for (std::int64_t steps : {std::int64_t{1}, std::int64_t{1000000000}})
      for (double eps : {0.5, 1e6})
        for (double delta : {std::numeric_limits<double>::denorm_min(), 0.999999}) {
          const RdpNoise noise = sampled_gaussian_noise_multiplier(q, steps, eps, delta);
          ASSERT_TRUE(std::isfinite(noise.noise_multiplier) && noise.noise_multiplier > 0);
          const double back = sampled_gaussian_epsilon(q, noise.noise_multiplier, steps, delta).epsilon;
          EXPECT_LE(back, eps) << q << " " << steps << " " << eps << " " << delta;
          EXPECT_GT(sampled_gaussian_epsilon(q, noise.noise_multiplier * (1 - 1e-7), steps, delta).epsilon, eps)
              << q << " " << steps << " " << eps << " " << delta;
        }
}

TEST(SampledGaussianRdp, ReplaceOneIsNoBetterThanAddRemove) {
  RdpOptions replace;
  replace.adjacency = Adjacency::ReplaceOne;
  for (double sigma : {0.8, 2.0, 10.0}) {
    const double add_remove = sampled_gaussian_epsilon(0.01, sigma, 1000, 1e-5).epsilon;
    EXPECT_GT(sampled_gaussian_epsilon(0.01, sigma, 1000, 1e-5, replace).epsilon, add_remove) << sigma;
  }
  // With q = 1 the exact replace-one Gaussian has sensitivity 2, i.e. RDP(a') = 4 a' / (2 sigma^2).
  // Group privacy maps add/remove order a = 2 a' (RDP a / (2 sigma^2)) to order a' with 3 a / (2 sigma^2)
  // = 6 a' / (2 sigma^2): 1.5x the exact value, valid but looser, so never below the exact epsilon.
  const RdpEpsilon rep = sampled_gaussian_epsilon(1.0, 10.0, 1, 1e-5, replace);
  const double exact_best = [] {
    double best = INFINITY;
    for (double a : default_rdp_orders())
      best = std::min(best, rdp_to_dp_epsilon_at(a, 4 * a / 200, 1e-5, RdpConversion::Improved));
    return best;
  }();
  EXPECT_GE(rep.epsilon, exact_best);
}

TEST(SampledGaussianRdp, InverseRoundTrips) {
  struct Case { double q; std::int64_t steps; double eps, delta; };
  for (const Case& c : {Case{256.0 / 60000, 14062, 3.0, 1e-5}, Case{0.01, 10000, 1.0, 1e-5},
                        Case{1e-4, 100000, 0.5, 1e-8}, Case{0.1, 100, 8.0, 1e-6}, Case{1.0, 10, 2.0, 1e-5}}) {
    const RdpNoise noise = sampled_gaussian_noise_multiplier(c.q, c.steps, c.eps, c.delta);
    EXPECT_LE(noise.epsilon, c.eps);
    EXPECT_NEAR(noise.epsilon / c.eps, 1.0, 1e-6) << c.q;
    const RdpEpsilon check = sampled_gaussian_epsilon(c.q, noise.noise_multiplier, c.steps, c.delta);
    EXPECT_EQ(check.epsilon, noise.epsilon);
    EXPECT_EQ(check.optimal_order, noise.optimal_order);
    // Slightly less noise would miss the target: it is the smallest sigma.
    EXPECT_GT(sampled_gaussian_epsilon(c.q, noise.noise_multiplier * (1 - 1e-7), c.steps, c.delta).epsilon, c.eps);
  }
  // The forward §13 vector inverted: eps 3.0091 (classic, orders 2..256) needs sigma 1.1.
  const auto o = options(integer_orders(2, 256), RdpConversion::Classic);
  const double eps = sampled_gaussian_epsilon(256.0 / 60000, 1.1, 14062, 1e-5, o).epsilon;
  EXPECT_NEAR(sampled_gaussian_noise_multiplier(256.0 / 60000, 14062, eps, 1e-5, o).noise_multiplier, 1.1, 1e-8);
}

TEST(SampledGaussianRdp, InverseRefusesTargetsBelowTwiceTheOrderFloor) {
  // Default grid, delta = 1e-5: floor ln(1e5)/19999 = 5.7568e-4, so targets below 1.15135e-3 are
  // refused with an error that names the floor (2 x = 1.15135e-3); 1.2e-3 is accepted.
  try {
    sampled_gaussian_noise_multiplier(0.01, 100, 1.1e-3, 1e-5);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(std::string(e.what()).find("floor"), std::string::npos);
    EXPECT_NE(e.detail().find("0.00115135"), std::string::npos) << e.detail();
    EXPECT_FALSE(e.hint().empty());
  }
  const RdpNoise ok = sampled_gaussian_noise_multiplier(0.01, 100, 1.2e-3, 1e-5);
  EXPECT_LE(ok.epsilon, 1.2e-3);
  // Orders 2..256 at delta = 1e-5: floor ln(1e5)/255 = 0.045149; 0.09 is refused, 0.091 is not.
  const auto small = options(integer_orders(2, 256), RdpConversion::Improved);
  EXPECT_THROW(sampled_gaussian_noise_multiplier(0.01, 100, 0.09, 1e-5, small), Error);
  EXPECT_NO_THROW(sampled_gaussian_noise_multiplier(0.01, 100, 0.091, 1e-5, small));
  EXPECT_THROW(sampled_gaussian_noise_multiplier(0.01, 100, 0, 1e-5), Error);
}

// A target no noise multiplier down to 2^-61 exceeds (epsilon = 1e300 from a
// user) is the user's error (22023), not an internal one (XX000).
TEST(SampledGaussianRdp, InverseRefusesAbsurdlyLargeTargetsAsInvalid) {
  try {
    sampled_gaussian_noise_multiplier(0.01, 100, 1e300, 1e-5);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_STREQ(e.what(), "the target epsilon is too large for the RDP calibration");
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(SampledGaussianRdp, RejectsBadInput) {
  EXPECT_THROW(sampled_gaussian_rdp(0, 1, 2), Error);
  EXPECT_THROW(sampled_gaussian_rdp(1.5, 1, 2), Error);
  EXPECT_THROW(sampled_gaussian_rdp(0.1, 0, 2), Error);
  EXPECT_THROW(sampled_gaussian_rdp(0.1, INFINITY, 2), Error);
  EXPECT_THROW(sampled_gaussian_rdp(0.1, 1, 1), Error);
  EXPECT_THROW(sampled_gaussian_rdp(0.1, 1, NAN), Error);
  EXPECT_THROW(sampled_gaussian_epsilon(0.1, 1, 0, 1e-5), Error);
  EXPECT_THROW(sampled_gaussian_epsilon(0.1, 1, 10, 0), Error);
  EXPECT_THROW(sampled_gaussian_epsilon(0.1, 1, 10, 1e-5, options({}, RdpConversion::Improved)), Error);
}

// A cancel stops the accounting between orders (the SQL functions accept any number of
// orders: rdp_sigma over 2 * 10^6 of them ran 17 s past a 100 ms statement_timeout). The
// callback is polled once per order evaluated; the first true ends the search with 57014.
TEST(SampledGaussianRdp, InterruptStopsBetweenOrders) {
  RdpOptions o = options(integer_orders(2, 200), RdpConversion::Improved);
  int polls = 0;
  o.interrupted = [&] { return ++polls == 3; };
  try {
    sampled_gaussian_epsilon(0.01, 1.1, 1000, 1e-5, o);
    FAIL() << "an interrupted search returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "57014");
  }
  EXPECT_EQ(polls, 3);  // nothing evaluated after the cancel
  o.interrupted = [&] { return ++polls == 3; };
  polls = 0;
  EXPECT_THROW(sampled_gaussian_noise_multiplier(0.01, 1000, 1.0, 1e-5, o), Error);
  EXPECT_EQ(polls, 3);
  // Never interrupted: the same answer as without the callback.
  RdpOptions quiet = options(integer_orders(2, 200), RdpConversion::Improved);
  RdpOptions polled = quiet;
  polled.interrupted = [] { return false; };
  EXPECT_EQ(sampled_gaussian_epsilon(0.01, 1.1, 1000, 1e-5, quiet).epsilon,
            sampled_gaussian_epsilon(0.01, 1.1, 1000, 1e-5, polled).epsilon);
}

}  // namespace
}  // namespace dptrain::privacy
