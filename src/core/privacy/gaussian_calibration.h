// Calibration of the Gaussian mechanism: the standard deviation sigma of
// N(0, sigma^2 I) noise that makes a query with L2-sensitivity `sensitivity`
// (epsilon, delta)-DP.
//
// Adjacency: none of these formulas depends on it. `sensitivity` is the L2
// sensitivity under whatever neighbouring relation the caller uses (e.g. 2L for
// a sum of L-Lipschitz gradients under replace-one, L under add/remove-one);
// the guarantee then holds for that same relation.
#pragma once

#include <string>

namespace dptrain::privacy {

enum class GaussianCalibration {
  Analytic,  // Balle & Wang (ICML 2018), Theorem 8: exact, any epsilon > 0 (the default)
  Classic,   // Dwork & Roth (2014), Theorem A.1: sqrt(2 ln(1.25/delta)) * Delta / epsilon, epsilon < 1 only
  Amp,       // Iyengar et al. (S&P 2019), Lemma III.1: (1 + sqrt(2 ln(1/delta))) * Delta / epsilon
};

// "analytic" | "classic" | "amp"; anything else throws Error(InvalidParameter).
GaussianCalibration parse_gaussian_calibration(const std::string& name);
std::string gaussian_calibration_name(GaussianCalibration method);

// Standard deviation sigma of N(0, sigma^2 I) noise that makes a query with
// L2-sensitivity `sensitivity` (epsilon, delta)-DP. Requires sensitivity > 0
// finite, epsilon > 0 finite, delta in (0, 1). Classic throws for epsilon >= 1
// (its proof needs epsilon < 1; the hint points to analytic). Amp throws where the tail bound
// its proof gives, P(privacy loss > epsilon) <= delta, fails (Lemma III.1 is stated for every
// epsilon but fails above epsilon ~11.7 at delta = 0.1, ~17.8 at 1e-5, ~23.6 at 1e-12; the
// exact profile below exceeds delta a little later). Analytic returns
// the smallest sigma (to ~1e-12 relative, rounded up) for which the exact
// condition of Balle & Wang Theorem 8 holds.
double gaussian_sigma(double sensitivity, double epsilon, double delta,
                      GaussianCalibration method = GaussianCalibration::Analytic);

// The privacy profile of the Gaussian mechanism (Balle & Wang 2018, Theorem 8):
// the smallest delta for which N(0, sigma^2) noise on a query with
// L2-sensitivity `sensitivity` is (epsilon, delta)-DP:
//   delta(epsilon) = Phi(Delta/(2 sigma) - epsilon sigma/Delta)
//                    - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta).
// Requires sensitivity > 0, sigma > 0, epsilon >= 0, all finite.
double analytic_gaussian_delta(double sensitivity, double sigma, double epsilon);

}  // namespace dptrain::privacy
