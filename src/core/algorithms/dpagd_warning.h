// DP-AGD's refinement spiral, told to the user (docs/dpagd.md, "When the
// budget goes to refinements"). At large epsilon the noisy line search
// reliably returns "no step"; each failure re-measures the gradient at
// (1 + gamma) times its budget, and the run ends with few steps taken: the
// model can be at the majority rate with the largest budgets.
//
// The criterion reads only counts the model already releases in
// details->'privacy' (iterations, gradient_refinements, line_searches,
// rho_ng, rho_ng_final). Each is a function of the noisy selections j* and of
// public settings (Lee & Kifer 2018, Algorithm 2: a refinement happens iff
// the report-noisy-min returned 0 and the filter paid for it), so reporting
// them, and anything computed from them, is post-processing and costs no
// privacy (Bun & Steinke 2016, Lemma 1.8). The threshold is fixed before any
// data: a warning when the line searches found no step more often than they
// found one, i.e. most of the line-search budget bought no progress.
#pragma once

#include <optional>
#include <string>

#include "core/algorithms/dpagd.h"

namespace dptrain {

// What a finished DP-AGD run released about its path.
struct DpagdPath {
  long iterations = 0;     // accepted steps (line searches with j* > 0)
  long refinements = 0;    // failed line searches whose refinement was paid
  long line_searches = 0;  // all paid line searches
  double rho_ng = 0;       // the first gradient measurement's zCDP
  double rho_ng_final = 0; // after the refinements: rho_ng (1 + gamma)^refinements
};

// True when more line searches found no step than found one: refinements > iterations.
bool dpagd_budget_went_to_refinements(const DpagdPath& path);

// The warning (what happened in numbers, what to do), or nothing.
std::optional<std::string> dpagd_refinement_warning(const DpagdSettings& settings, const DpagdPath& path);

}  // namespace dptrain
