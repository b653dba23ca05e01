#include "intercept_rows.h"

#include <cmath>

#include "training_data.h"

namespace dptrain::pg {

char* with_intercept(const char* features, const PreparedData* out) {
  if (!(out->intercept > 0)) return pstrdup(features);
  return psprintf("dptrain.intercept_row(%s, %.17g::pg_catalog.float8, %.17g::pg_catalog.float8)", features,
                  out->intercept_bound, out->intercept);
}

void require_intercept_arguments(double bound, double b) {
  if (!(bound > 0) || !std::isfinite(bound) || !(b > 0) || !std::isfinite(b))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("feature_bound and intercept must be positive finite numbers"),
                    errdetail("feature_bound = %g, intercept = %g.", bound, b),
                    errhint("dp_train chooses them itself (docs/intercept.md).")));
}

}  // namespace dptrain::pg
