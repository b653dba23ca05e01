// Composition of (epsilon, delta)-DP mechanisms. Both theorems hold for any fixed
// neighbouring relation: the composed guarantee is under the same adjacency as
// the parts (add/remove-one or replace-one alike), and the parts may be chosen
// adaptively.
#pragma once

#include <cstdint>
#include <vector>

#include "core/privacy/adjacency.h"

namespace dptrain::privacy {

// Basic composition (Dwork & Roth 2014, Theorem 3.16): epsilons and deltas add.
DpGuarantee basic_composition(const std::vector<DpGuarantee>& parts);
// k-fold basic composition: (k epsilon, k delta).
DpGuarantee basic_composition(double epsilon, double delta, std::int64_t k);

// Advanced composition (Dwork, Rothblum & Vadhan 2010, Theorem III.3; Dwork & Roth
// Theorem 3.20; Lee & Kifer 2018, Theorem 3.4): the k-fold adaptive composition of
// (epsilon, delta)-DP mechanisms is (epsilon', k delta + delta')-DP with
//   epsilon' = sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1).
// Requires epsilon > 0, delta in [0, 1), k >= 1, delta' in (0, 1), k delta + delta' < 1.
// (The theorem's epsilon' may exceed k epsilon for large epsilon; basic_composition is
// then the better bound. This function returns the theorem's value as stated.)
DpGuarantee advanced_composition(double epsilon, double delta, std::int64_t k, double delta_prime);

// Inverse of advanced composition: the largest per-step epsilon whose k-fold advanced
// composition is at most `total_epsilon` (bisection; the returned epsilon is on the safe
// side, its epsilon' <= total_epsilon). Used to split a budget over k steps (BST14 in
// Bolt-on Algorithm 5, step 2).
double advanced_composition_step_epsilon(double total_epsilon, std::int64_t k, double delta_prime);

}  // namespace dptrain::privacy
