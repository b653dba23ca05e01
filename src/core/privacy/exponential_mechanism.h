// The exponential mechanism (McSherry & Talwar, FOCS 2007; Dwork & Roth 2014,
// Definition 3.4 and Theorem 3.10: epsilon-DP with exp(epsilon u / (2 Delta u))) for choosing one
// of l candidates by a score to MINIMIZE (e.g. misclassifications on held-out
// rows): candidate i is chosen with probability
//
//     exp(-epsilon * score_i / (2 * sensitivity)) / sum_j exp(-epsilon * score_j / (2 * sensitivity)),
//
// which is epsilon-DP when every score changes by at most `sensitivity`
// between neighbouring datasets (each score separately, in any direction:
// hence the factor 2; the tighter exp(-epsilon score / sensitivity) needs all
// scores to move in the same direction, which replace-one does not give).
//
// Sampling: weights are computed relative to the smallest score (so the best
// candidate has weight 1 and nothing overflows), then one uniform in (0, 1)
// from the RandomSource picks the candidate by inversion of the cumulative
// weights. Floating point: the probabilities are rounded to doubles and the
// uniform has 53 bits, so the realized probabilities differ from the exact
// ones by ~1e-16 relative (outside the formal guarantee, like the samplers;
// Ilvento, "Implementing the exponential mechanism with base-2 differential
// privacy", CCS 2020, gives an exact variant).
#pragma once

#include <cstddef>
#include <vector>

#include "core/privacy/random_source.h"

namespace dptrain::privacy {

// The selection probabilities above (they sum to 1). Throws
// Error(InvalidParameter) for an empty list, a non-finite score or
// epsilon/sensitivity not positive and finite.
std::vector<double> exponential_mechanism_probabilities(const std::vector<double>& scores, double epsilon,
                                                        double sensitivity);

// Refuses (InvalidParameter + hint), before any weight is computed, parameters whose
// exponent -epsilon * (score - best) / (2 sensitivity) is not representable: 2 sensitivity
// overflowing, or epsilon times `score_range` (the largest score minus the smallest, or a
// public bound on it) overflowing. Before, epsilon * range = inf over 2 sensitivity = inf
// made every other weight NaN and the draw picked the last candidate deterministically.
// Callers that charge a budget call it with the public range before the charge
// (private_tuning: the held-out rows); the functions below call it with the scores' span.
void require_exponential_mechanism_range(double epsilon, double sensitivity, double score_range);

// One draw: the index of the chosen candidate.
std::size_t exponential_mechanism(const std::vector<double>& scores, double epsilon, double sensitivity,
                                  RandomSource& rng);

// The exponential mechanism for MONOTONE scores: between every pair of neighbours all
// scores move in the same direction, each by at most `sensitivity` (e.g. sums of
// non-negative clipped losses under add/remove-one: adding a row raises every score).
// Candidate i is chosen with probability
//
//     exp(-epsilon * score_i / sensitivity) / sum_j exp(-epsilon * score_j / sensitivity),
//
// without the factor 2 above (McSherry & Talwar 2007; Dwork & Roth 2014, the remark after
// Theorem 3.10), and still epsilon-DP: the normalizer moves against the chosen score. It is
// also epsilon-bounded-range (all score differences of a pair lie in [0, Delta] or in
// [-Delta, 0]), hence epsilon^2/8-zCDP (zcdp.h, zcdp_from_bounded_range). The same as the
// functions above at sensitivity / 2; the same refusals.
std::vector<double> monotone_exponential_mechanism_probabilities(const std::vector<double>& scores, double epsilon,
                                                                 double sensitivity);
std::size_t monotone_exponential_mechanism(const std::vector<double>& scores, double epsilon, double sensitivity,
                                           RandomSource& rng);

}  // namespace dptrain::privacy
