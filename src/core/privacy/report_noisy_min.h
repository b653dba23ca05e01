// Report-noisy-min (Dwork & Roth 2014, Claim 3.9, stated for max; Lee & Kifer
// 2018, Algorithm 1 "NoisyMax"): add independent noise to every candidate's
// score and release only the index of the smallest noisy score.
//
// Which noise and scale is private depends on the scores (docs/pitfalls.md §P13):
//   * Laplace with scale 2 Delta / epsilon: epsilon-DP for ANY scores that
//     each move by at most Delta between neighbours (some up, some down).
//     Private Frank-Wolfe's scores <s, grad L> are of this kind: the same
//     row change moves the scores of +c e_j and -c e_j in opposite directions.
//   * Laplace or exponential with scale Delta / epsilon: epsilon-DP only for
//     MONOTONE scores (between neighbours all move in the same direction),
//     e.g. sums of non-negative clipped losses under add/remove adjacency
//     (DP-AGD's line search; Lee & Kifer Theorem 3.2, Ding et al. 2021 for
//     the exponential variant, "The permute-and-flip mechanism is identical
//     to report-noisy-max with exponential noise").
// The caller picks the scale; these functions only draw.
#pragma once

#include <cstddef>
#include <vector>

#include "core/privacy/random_source.h"

namespace dptrain::privacy {

enum class NoisyMinNoise { Laplace, Exponential };

// argmin_i (scores[i] + Lap(scale)) for Laplace; argmin_i (scores[i] - E_i)
// with E_i ~ Exponential(mean scale) for Exponential (the exponential noise
// is subtracted: a min over scores is a max over their negatives, and
// NoisyMax ADDS exponential noise). One draw per candidate, in index order,
// from `rng`. Ties go to the lowest index. Throws Error(InvalidParameter)
// for no candidates, a non-finite score or a scale that is not positive and
// finite.
std::size_t report_noisy_min(const std::vector<double>& scores, NoisyMinNoise noise, double scale,
                             RandomSource& rng);

// The Laplace scale that makes report-noisy-min epsilon-DP for scores of
// sensitivity Delta: 2 Delta / epsilon for arbitrary scores, Delta / epsilon
// for monotone ones (see above). Both arguments positive and finite.
double noisy_min_scale(double sensitivity, double epsilon, bool monotone);

}  // namespace dptrain::privacy
