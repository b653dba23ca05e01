// The error for a feature row whose squared norm is not finite: a NaN or
// infinite value, or finite values too large to square. The epoch
// aggregate's wording and SQLSTATE (22P01), so that every pass (epochs,
// gradient sums, DP-SGD lots) refuses such a row of a reader's table alike;
// an analyst's copy has replaced such rows already (docs/governance.md).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/error.h"

namespace dptrain {

template <typename T>
[[noreturn]] void refuse_feature_row(const T* x, std::int64_t len) {
  for (std::int64_t i = 0; i < len; ++i)
    if (!std::isfinite(static_cast<double>(x[i])))
      throw Error(ErrorKind::InvalidData, "feature array contains a non-finite value (NaN or infinity)", {},
                  "Remove or repair rows with NaN or infinite features before training.",
                  sqlstate::kFloatingPointException);
  throw Error(ErrorKind::InvalidData, "feature values are too large",
              "The squared norm of a feature vector overflows a double.",
              "Scale the features (dptrain load normalizes rows to norm 1).", sqlstate::kFloatingPointException);
}

}  // namespace dptrain
