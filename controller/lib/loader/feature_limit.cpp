#include "loader/feature_limit.h"

#include "core/error.h"

namespace dptrain::loader {

void refuse_feature_count(const std::string& message) {
  fail(ErrorKind::InvalidData, message, "Every row is built densely: 8 bytes per feature.",
       "Check the input; if it really is that wide, pass --max-features N (default " +
           std::to_string(kDefaultMaxFeatures) + ").");
}

}  // namespace dptrain::loader
