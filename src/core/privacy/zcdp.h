// Zero-concentrated differential privacy (Bun & Steinke, TCC 2016): M is rho-zCDP if
// D_alpha(M(D) || M(D')) <= rho * alpha for every alpha > 1 and neighbours D, D'.
// As with RDP, the adjacency is whatever relation the sensitivities were computed
// under; conversions keep it (zcdp_add_remove_to_replace_one in adjacency.h changes it).
// DP-AGD (Lee & Kifer 2018, Alg. 2) budgets in zCDP under add/remove-one.
#pragma once

#include <string>
#include <vector>

namespace dptrain::privacy {

enum class ZcdpConversion {
  // Bun & Steinke 2016, Proposition 1.3 (Lee & Kifer Lemma 3.8):
  // eps = rho + 2 sqrt(rho ln(1/delta)).
  BunSteinke,
  // Canonne, Kamath & Steinke (NeurIPS 2020), Corollary 13: minimises over alpha > 1
  //   eps = alpha rho + (ln(1/delta) + (alpha-1) ln(alpha-1) - alpha ln alpha) / (alpha-1),
  // never larger than Bun-Steinke. The default.
  Cks,
};

// "bun-steinke" | "cks"; anything else throws Error(InvalidParameter).
ZcdpConversion parse_zcdp_conversion(const std::string& name);
std::string zcdp_conversion_name(ZcdpConversion conversion);

// Gaussian mechanism with L2 sensitivity Delta and noise N(0, sigma^2 I) is
// Delta^2 / (2 sigma^2)-zCDP (Bun & Steinke Proposition 1.6; Lee & Kifer Lemma 3.6).
double zcdp_gaussian_rho(double sensitivity, double sigma);
// Its inverse: the sigma that makes the Gaussian mechanism rho-zCDP, Delta / sqrt(2 rho).
double zcdp_gaussian_sigma(double sensitivity, double rho);
// epsilon-DP => epsilon^2 / 2-zCDP (Bun & Steinke Proposition 1.4; Lee & Kifer Lemma 3.7).
double zcdp_from_pure_dp(double epsilon);
// An epsilon-bounded-range mechanism (Durfee & Rogers 2019: the privacy loss of every
// neighbour pair lies in an interval of width epsilon; e.g. the exponential mechanism) is
// epsilon^2 / 8-zCDP (Cesar & Rogers, ALT 2021, Lemma 3.2; proof by Hoeffding's lemma in docs/pfw.md).
double zcdp_from_bounded_range(double epsilon);
// Composition adds rho (Bun & Steinke Lemma 1.7; Lee & Kifer Lemma 3.5).
double zcdp_compose(const std::vector<double>& rhos);

// rho-zCDP => (epsilon, delta)-DP. Requires rho >= 0 finite, delta in (0, 1).
double zcdp_to_dp_epsilon(double rho, double delta, ZcdpConversion conversion = ZcdpConversion::Cks);

// The zCDP budget for an (epsilon, delta)-DP target: the largest rho whose Bun-Steinke
// conversion gives exactly (epsilon, delta), i.e. the root of eps = rho + 2 sqrt(rho ln(1/delta)):
//   rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2
// (Lee & Kifer 2018, eq. (5)). A planning tool: it does NOT claim that an
// (epsilon, delta)-DP mechanism is rho-zCDP. Spending this rho then guarantees (epsilon, delta)-DP
// by either conversion.
double dp_to_zcdp_rho(double epsilon, double delta);

// The same with the tighter conversion: the largest rho (to about 1e-12 relative) whose
// Canonne-Kamath-Steinke conversion (Corollary 13, ZcdpConversion::Cks) gives at most epsilon
// at delta; never below dp_to_zcdp_rho (1 - 1e-12). Spending it guarantees (epsilon, delta)-DP
// by that conversion only. The maximum over orders t of (epsilon - CKS_t(0)) / (1 + t).
double dp_to_zcdp_rho_cks(double epsilon, double delta);

}  // namespace dptrain::privacy
