// The tie warning of a released P-FW model (docs/pfw.md, "Scores of 0"):
// every linear model gives a binary row the positive class when its score
// w.x + c is >= 0 (docs/export.md), so a row none of whose features the
// model weights scores exactly 0 and is predicted positive. P-FW's weights
// are an average of at most T vertices +-c e_j, so they have at most T
// nonzero coordinates per class; on sparse rows (Reuters: ~44 non-zeros of
// 8,315) most rows then score 0. The warning reads the released weights
// only (post-processing of the release): it says nothing about the rows.
#pragma once

#include <optional>
#include <string>

#include "core/model.h"

namespace dptrain {

// A warning when `m` has no intercept and one of its weight rows has
// nonzero weights on at most half of its features; nullopt otherwise.
std::optional<std::string> pfw_tie_warning(const Model& m);

}  // namespace dptrain
