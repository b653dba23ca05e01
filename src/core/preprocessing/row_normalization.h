// Per-row feature normalization: every paper's analysis assumes ||x||_2 <= 1.
// Clipping is the "sample clipping" of Iyengar et al. (S&P 2019), Section V-A:
// x <- x min(1, L / ||x||), which makes the logistic and Huber losses L-Lipschitz
// (a global rescale by the data's largest norm would depend on every row).
//
// Each operation looks at one row only, so it is the same function for every
// dataset and neighbouring datasets differ in at most one transformed row:
// these keep differential privacy intact (unlike a global rescale by the
// largest row norm, which depends on every row).
#pragma once

#include <cstddef>
#include <string>

namespace dptrain::preprocessing {

enum class RowNormalization {
  UnitL2,  // x / ||x|| (rows of norm 1; a zero row stays zero) -- DP-AGD's "unit norm"
  Clip,    // x / max(1, ||x||) (AMP's "sample clipping" with L = 1)
  // (Both aim a few ulps below norm 1 so that no recomputation exceeds 1.)
  None,    // leave rows as they are (the caller vouches for ||x|| <= 1)
};

// Parses "l2" | "clip" | "none"; throws dptrain::Error(InvalidParameter) otherwise.
RowNormalization parse_row_normalization(const std::string& name);
const char* row_normalization_name(RowNormalization n);

// Normalizes x[0..n) in place; returns the row's L2 norm before normalization.
double normalize_row(double* x, std::size_t n, RowNormalization how);

}  // namespace dptrain::preprocessing
