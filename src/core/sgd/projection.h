// Euclidean projection onto the ball {w : ||w||_2 <= radius}: w * min(1, R/||w||).
// Only ever shrinks (rescaling up to norm R is not non-expansive, docs/pitfalls.md §P21).
#pragma once

#include <cstddef>

namespace dptrain {

void project_l2_ball(double* w, std::size_t n, double radius);

}  // namespace dptrain
