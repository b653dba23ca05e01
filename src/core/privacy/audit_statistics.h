// Statistics of empirical privacy audits: turning the error counts of a
// distinguisher into a lower bound on epsilon that holds with a stated
// confidence (Jagielski, Ullman, Oprea, "Auditing differentially private
// machine learning", NeurIPS 2020; Nasr et al., "Adversary instantiation",
// S&P 2021).
//
// Setting. A mechanism M is run independently many times on two neighbouring
// datasets D and D'. A test, fixed before these runs are made, says
// "D" when the released output falls in a set S (and "D'" otherwise). With
// FNR = P[M(D) not in S] and FPR = P[M(D') in S], (epsilon, delta)-DP applied to
// S and to its complement (both orders of the pair are neighbours) gives
//     1 - FNR <= e^eps FPR + delta   and   1 - FPR <= e^eps FNR + delta,
// so
//     eps >= max( ln((1 - delta - FNR) / FPR), ln((1 - delta - FPR) / FNR) ).
// Both expressions decrease in FNR and FPR, so plugging in upper confidence
// bounds keeps a valid lower bound: if FNR <= FNR_u and FPR <= FPR_u hold
// simultaneously with probability >= 1 - alpha, then with probability >=
// 1 - alpha the true epsilon of M is at least the bound computed from FNR_u
// and FPR_u. We use exact one-sided Clopper-Pearson upper bounds at level
// 1 - alpha/2 for each rate (union bound over the two).
#pragma once

#include <cstdint>

namespace dptrain::privacy::audit {

// Exact (Clopper-Pearson) one-sided bounds on the success probability p of a
// binomial from k successes in n trials, at confidence 1 - alpha:
//   upper: the p with P[Bin(n, p) <= k] = alpha   (1 if k = n)
//          = the (1 - alpha) quantile of Beta(k + 1, n - k)
//   lower: the p with P[Bin(n, p) >= k] = alpha   (0 if k = 0)
//          = the alpha quantile of Beta(k, n - k + 1)
double clopper_pearson_upper(std::int64_t k, std::int64_t n, double alpha);
double clopper_pearson_lower(std::int64_t k, std::int64_t n, double alpha);

struct ErrorCounts {
  std::int64_t false_negatives = 0;  // runs on D the test did not recognize
  std::int64_t runs_d = 0;           // runs on D
  std::int64_t false_positives = 0;  // runs on D' the test took for D
  std::int64_t runs_d_prime = 0;     // runs on D'
};

struct EpsilonLowerBound {
  double epsilon = 0.0;     // the bound (0 if the test shows nothing)
  double fnr_upper = 1.0;   // Clopper-Pearson upper bounds used
  double fpr_upper = 1.0;
  double point_estimate = 0.0;  // the same formula on the raw rates (no confidence; for reports)
};

// The lower bound above with confidence 1 - alpha (each rate at 1 - alpha/2),
// for a mechanism claimed (epsilon, delta)-DP (delta = 0 for pure DP).
// Never negative: a test that shows nothing gives 0.
EpsilonLowerBound epsilon_lower_bound(const ErrorCounts& counts, double delta, double alpha);

}  // namespace dptrain::privacy::audit
