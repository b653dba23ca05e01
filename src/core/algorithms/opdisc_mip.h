// OPDisc's oracle: the exact argmin of the perturbed normalized objective
//   sum_g (p_g e+_g + m_g e-_g) - <eta, pi(k)>
// over the integer grid k_j in {-B..B}, ||k||^2 <= K, as a mixed-integer
// program solved by COIN-OR CBC (docs/opdisc.md has the formulation and why
// it is exact). The perturbation is linear in binaries: r_{j,v} = 1[k_j = v]
// carries -eta_j v / sqrt(K), q_s = 1[||k||^2 = s] carries
// -eta_{d+1} sqrt(1 - s/K) (the paper's supplement linearizes the last
// coordinate of pi the same way).
//
// Privacy needs the EXACT argmin (Theorem 1 assumes an exact oracle): the
// solve must end with CBC's status "proven optimal" at relative gap 0
// (absolute gap <= 1e-7), and the solution is re-evaluated on the grid. A
// time-out, an interrupt or any other status throws and nothing is
// released.
//
// CBC runs in a forked child process that computes only (no database
// calls) and reports the argmin through a pipe: the caller polls its
// interrupt flag every 50 ms and kills the child on a cancel or past the
// time limit. (CBC's own event handler is called only between nodes of the
// search, which can be a minute apart at the root of an Adult-sized MIP: a
// cancel must not wait for that.) The child's stdout and stderr go to
// /dev/null, so nothing of CBC reaches the server log, and CBC's SIGINT
// handler is never installed.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "core/algorithms/opdisc_groups.h"

namespace dptrain::opdisc {

struct MipOptions {
  double time_limit = 600;                 // seconds of wall time for the whole solve
  std::function<bool()> interrupted;       // polled every 50 ms during the solve; true = stop now
  // CBC's first incumbent. Unset (the run): a local search's grid point
  // (opdisc_start.h). Set (tests): this point, ignored unless on the grid.
  // It never changes the result: only a point proved optimal is returned.
  std::optional<std::vector<int>> start;
};

struct MipSolution {
  std::vector<int> k;          // the argmin (grid units: w = tau k)
  double objective = 0;        // its objective, re-evaluated exactly
  double seconds = 0;          // wall time of the solve
  long nodes = 0;              // branch-and-bound nodes
};

// eta has d + 1 entries. Throws Error: ProgramLimit (time limit reached),
// Internal (not proven optimal, or the solution is off the grid or does not
// reproduce CBC's objective), or an error with SQLSTATE 57014 when
// `interrupted` said stop.
MipSolution solve_exact(const GroupedRows& data, int bound, int norm_squared, const std::vector<double>& eta,
                        const MipOptions& options);

}  // namespace dptrain::opdisc
