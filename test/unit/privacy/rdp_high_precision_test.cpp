// The integer-order RDP of the sampled Gaussian at orders up to 20000 against the
// independent 50-digit binomial sum (rdp_reference.h).
#include <gtest/gtest.h>

#include "core/privacy/rdp_sampled_gaussian.h"
#include "rdp_reference.h"

namespace dptrain::privacy {
namespace {

struct Case {
  double q, sigma;
  long order;
};

TEST(SampledGaussianRdpHighPrecision, LargeOrdersMatchFiftyDigitSums) {
  for (const Case& c : {
           // The RDP floor example (n = 36176, lot 50, z = 80.1): A - 1 is small, the optimum is in the thousands.
           Case{50.0 / 36176, 80.1, 2}, Case{50.0 / 36176, 80.1, 1024}, Case{50.0 / 36176, 80.1, 5008},
           Case{50.0 / 36176, 80.1, 20000},
           // Tiny q, large sigma: A - 1 ~ 1e-9 at order 20000 (the cancellation the code avoids).
           Case{1e-6, 100, 20000},
           // Small sigma: ln A ~ 1e8, every term huge; and a DP-SGD-like point.
           Case{256.0 / 60000, 1.1, 20000}, Case{250.0 / 30162, 0.9, 4000}, Case{0.3, 2.0, 10000}}) {
    const double expected = reference::rdp_mp(c.q, c.sigma, c.order);
    const double got = sampled_gaussian_rdp(c.q, c.sigma, static_cast<double>(c.order));
    EXPECT_NEAR(got / expected, 1.0, 1e-12) << "q " << c.q << " sigma " << c.sigma << " order " << c.order
                                            << ": " << got << " vs " << expected;
  }
}

}  // namespace
}  // namespace dptrain::privacy
