// Privacy constants the audit of docs/privacy_constants.md found without a
// hand-computed pin: the exact-delta vectors of algorithms.md §13 ("added after
// review"), the closed-form P-SGD vector of §13, the width of the noise key
// (§0 "never seed privacy noise from fewer than 128 bits", T25), and the edge
// values of the audit brief (n = 1, q = 1, delta near 1, very small epsilon,
// one Liu-Talwar candidate per round). Every value was computed by hand with
// mpmath (40 digits); the arithmetic is in the comment above each check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/algorithms/bst14.h"
#include "core/dpsgd/plan.h"
#include "core/privacy/bolton_sensitivity.h"
#include "core/privacy/composition.h"
#include "core/privacy/gaussian_calibration.h"
#include "core/privacy/random_source.h"
#include "core/privacy/zcdp.h"
#include "core/selection/liu_talwar.h"

namespace dptrain {
namespace {

double rel(double got, double want) { return std::fabs(got / want - 1); }

// algorithms.md §13 (after review), "Exact Gaussian delta (Delta = 1, delta_target = 1/36176^2)":
// at epsilon = 10 the classic constants do not give their delta, G2 does.
//   delta_target = 1/36176^2 = 7.641153e-10, ln(1/delta) = 20.99230239;
//   G1: sigma = sqrt(2 ln(1.25/delta)) / 10 = 0.651389989796431
//   G3: sigma = sqrt(2 ln(2/delta)) / 10    = 0.658565859570559
//   G2: sigma = (1 + sqrt(2 ln(1/delta))) / 10 = 0.74795528223845
// Balle & Wang Thm 8: delta(sigma) = Phi(1/(2 sigma) - 10 sigma) - e^10 Phi(-1/(2 sigma) - 10 sigma):
//   G1 9.24510907403e-10 (1.2099 x target), G3 5.63190519882e-10, G2 7.70589436408e-13.
TEST(PrivacyConstantsAudit, ExactDeltaOfTheThreeGaussianConstantsAtEpsilonTen) {
  using privacy::analytic_gaussian_delta;
  const double target = 1.0 / (36176.0 * 36176.0);
  const double log_inv = -std::log(target);
  const double g1 = std::sqrt(2 * (std::log(1.25) + log_inv)) / 10;
  const double g3 = std::sqrt(2 * (std::log(2.0) + log_inv)) / 10;
  const double g2 = (1 + std::sqrt(2 * log_inv)) / 10;
  EXPECT_LT(rel(g1, 0.651389989796431), 1e-13);
  EXPECT_LT(rel(g3, 0.658565859570559), 1e-13);
  EXPECT_LT(rel(g2, 0.74795528223845), 1e-13);
  EXPECT_LT(rel(analytic_gaussian_delta(1.0, g1, 10.0), 9.24510907403e-10), 1e-8);
  EXPECT_LT(rel(analytic_gaussian_delta(1.0, g3, 10.0), 5.63190519882e-10), 1e-8);
  EXPECT_LT(rel(analytic_gaussian_delta(1.0, g2, 10.0), 7.70589436408e-13), 1e-8);
  EXPECT_GT(analytic_gaussian_delta(1.0, g1, 10.0), target);  // G1 fails at eps = 10: hence the eps < 1 refusal
  // The code's AMP calibration (G2) at this point returns exactly Lemma III.1's sigma (its tail check passes).
  EXPECT_LT(rel(privacy::gaussian_sigma(1.0, 10.0, target, privacy::GaussianCalibration::Amp), 0.74795528223845),
            1e-13);
}

// algorithms.md §13: "dpml P-SGD closed form (n=45220, T=1000, eps=0.1, delta=1/n^2, L=1): sigma_avg = 0.129517".
//   ln(1/delta) = 2 ln 45220 = 21.43858949; sigma_avg = 4 sqrt(1000 * 21.43858949) / (45220 * 0.1)
//   = 4 * 146.4192 / 4522 = 0.129517227018. On the sum of k = 50 rows (q = 50/45220), in units of L:
//   z = k sigma_avg = 4 q sqrt(T ln(1/delta)) / eps = 6.47586135089.
TEST(PrivacyConstantsAudit, ClosedFormPsgdMatchesTheSection13Vector) {
  const double n = 45220;
  const double z = dpsgd::closed_form_psgd_noise_multiplier(50 / n, 1000, 0.1, 1 / (n * n));
  EXPECT_LT(rel(z, 6.47586135089), 1e-10);
  EXPECT_LT(rel(z / 50, 0.129517227018), 1e-10);
}

// §0 [after review] / T25: never seed privacy noise from fewer than 128 bits. The key of every
// noise stream is 256 bits, and a secure source draws all of them from the OS.
TEST(PrivacyConstantsAudit, NoiseKeysAreTwoHundredFiftySixBits) {
  EXPECT_EQ(privacy::RandomSource::Key().size() * 8, 256u);
  auto a = privacy::RandomSource::secure();
  auto b = privacy::RandomSource::secure();
  EXPECT_FALSE(a.is_seeded());
  const privacy::RandomSource::Key ka = privacy::draw_key(a);
  const privacy::RandomSource::Key kb = privacy::draw_key(b);
  EXPECT_NE(ka, kb);
}

// Edge n = 1 (Bolt-on, §1.1 and §1.2).
//   Convex, constant eta = 1 <= 2/beta (beta = 1), L = 1, m = b = 1, k = 3: Delta = 2 k L eta / b = 6.
//   Strongly convex, lambda = 0.01, R = 1/lambda: L = 1 + lambda R = 2, beta = 1 + lambda = 1.01, gamma = 0.01,
//   m = b = k = 1: T = 1, eta_1 = min(1/beta, 1/gamma) = 1/1.01, Delta = 2 L eta_1 = 4/1.01 = 3.96039603960
//   (below the paper's 2L/(gamma m) = 400: Lemma 8's bound with the step actually taken).
TEST(PrivacyConstantsAudit, BoltonSensitivityWithOneRow) {
  privacy::bolton::RunShape s;
  s.rows = 1;
  s.batch_size = 1;
  s.epochs = 3;
  EXPECT_NEAR(privacy::bolton::convex_constant_step(1.0, 1.0, 1.0, s), 6.0, 1e-12);
  s.epochs = 1;
  EXPECT_LT(rel(privacy::bolton::strongly_convex_decreasing_step(2.0, 1.01, 0.01, s), 3.96039603960), 1e-10);
}

// Edge q = 1 (BST14 with b = m, §3): m = b = 10, k = 2, eps = 1, delta = 1e-6, Delta = 2.
//   T = 2; delta' = 5e-7; delta_1 = delta/(2T) = 2.5e-7;
//   eps_1: sqrt(2 * 2 * ln(2e6)) e + 2 e (e^e - 1) = 1, 7.6180464 e + 2 e (e^e - 1) = 1 -> eps_1 = 0.126769123120793.
//   Exact amplification at q = 1 is the identity: eps_0 = ln(1 + (e^eps_1 - 1)/1) = eps_1, delta_0 = delta_1;
//     classic sigma = 2 sqrt(2 ln(1.25/2.5e-7)) / eps_1 = 87.6280945484966.
//   Linear (BST14): eps_0 = min(1, eps_1 / 2) = 0.0633845615603964, sigma = 175.256189096993 (twice).
TEST(PrivacyConstantsAudit, Bst14WithTheWholeTableAsItsBatch) {
  Bst14Budget b = bst14_budget(10, 10, 2, 1.0, 1e-6, 2.0, privacy::GaussianCalibration::Classic,
                               Bst14Amplification::Exact);
  EXPECT_EQ(b.updates, 2);
  EXPECT_DOUBLE_EQ(b.sampling_rate, 1.0);
  EXPECT_LT(rel(b.epsilon_step, 0.126769123120793), 1e-9);
  EXPECT_LT(rel(b.epsilon_0, 0.126769123120793), 1e-9);
  EXPECT_LT(rel(b.delta_0, 2.5e-7), 1e-12);
  EXPECT_LT(rel(b.sigma, 87.6280945484966), 1e-9);
  b = bst14_budget(10, 10, 2, 1.0, 1e-6, 2.0, privacy::GaussianCalibration::Classic, Bst14Amplification::Linear);
  EXPECT_LT(rel(b.epsilon_0, 0.0633845615603964), 1e-9);
  EXPECT_LT(rel(b.sigma, 175.256189096993), 1e-9);
}

// Edge delta near 1 (zCDP, §0): eps = 1, delta = 0.9, ln(1/delta) = 0.105360515657826:
//   rho = (sqrt(1.105360515657826) - sqrt(0.105360515657826))^2 = 0.528192339120198,
//   and back: rho + 2 sqrt(rho ln(1/delta)) = 1.
TEST(PrivacyConstantsAudit, ZcdpBudgetWithDeltaNearOne) {
  const double rho = privacy::dp_to_zcdp_rho(1.0, 0.9);
  EXPECT_LT(rel(rho, 0.528192339120198), 1e-12);
  EXPECT_LT(rel(privacy::zcdp_to_dp_epsilon(rho, 0.9, privacy::ZcdpConversion::BunSteinke), 1.0), 1e-12);
}

// Edge very small epsilon (advanced composition inverse, §0 / §3): total 1e-6 over k = 100, delta' = 1e-5:
//   sqrt(2 * 100 * ln(1e5)) e + 100 e (e^e - 1) = 1e-6, 47.9852591219 e + 100 e^2 (1 + ...) = 1e-6
//   -> eps_0 = 2.08397323442725e-8 (the quadratic term is 4e-14, i.e. eps_0 ~ 1e-6 / 47.985).
TEST(PrivacyConstantsAudit, AdvancedCompositionStepAtATinyTotal) {
  EXPECT_LT(rel(privacy::advanced_composition_step_epsilon(1e-6, 100, 1e-5), 2.08397323442725e-8), 1e-9);
}

// Liu-Talwar (§10) with gamma = 1: T = ceil(ln(1/delta2)) = ceil(13.8155) = 14 at delta2 = 1e-6;
//   candidates at (eps1, delta1) = (0.1, 1e-12): sqrt(2 delta1) = 1.41421356e-6,
//   total = (3 eps1 + 3 sqrt(2 delta1), sqrt(2 delta1) T + delta2) = (0.300004242640687, 2.07989898732233e-5).
TEST(PrivacyConstantsAudit, LiuTalwarWithStoppingProbabilityOne) {
  EXPECT_EQ(selection::liu_talwar_max_candidates(1.0, 1e-6), 14);
  const privacy::DpGuarantee g = selection::liu_talwar_total(0.1, 1e-12, 1.0, 1e-6);
  EXPECT_LT(rel(g.epsilon, 0.300004242640687), 1e-12);
  EXPECT_LT(rel(g.delta, 2.07989898732233e-5), 1e-10);
}

}  // namespace
}  // namespace dptrain
