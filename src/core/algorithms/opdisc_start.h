// A good grid point for OPDisc's MIP, found cheaply by local search on the
// exact perturbed objective (opdisc_groups.h, `objective`): CBC gets it as
// its first incumbent (a MIP start), so its branch-and-bound prunes from
// the first node instead of waiting for its own heuristics.
//
// The start never changes what is released: the run releases only the
// point CBC PROVES optimal (gap 0), re-evaluated exactly (opdisc_mip.h);
// an incumbent only lets the search prune sooner. With Gaussian noise the
// argmin is unique with probability 1 (two grid points k != k' tie only
// if <eta, pi(k) - pi(k')> equals an integer, a null event since pi is
// injective), so the proved optimum is the same point with or without a
// start. docs/opdisc.md §3 has the argument and the measured effect.
#pragma once

#include <vector>

#include "core/algorithms/opdisc_groups.h"

namespace dptrain::opdisc {

// The best grid point (|k_j| <= bound, ||k||^2 <= norm_squared) a
// deterministic local search finds: from k = 0, from the rounding of the
// noise's direction and from a few pseudo-random grid points (a fixed seed:
// the start is not part of the mechanism), it moves one coordinate to its
// best value, or two coordinates by one each (one up, one down: the
// direction that one-hot blocks leave every score unchanged along), while
// the objective improves.
std::vector<int> local_search_start(const GroupedRows& data, int bound, int norm_squared,
                                    const std::vector<double>& eta);

}  // namespace dptrain::opdisc
