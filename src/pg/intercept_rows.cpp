#include "intercept_rows.h"

#include <cmath>

#include "training_data.h"

namespace dptrain::pg {

char* with_intercept(const char* features, const PreparedData* out) {
  if (!(out->intercept > 0)) return pstrdup(features);
  return psprintf("dptrain.intercept_row(%s, %.17g::pg_catalog.float8, %.17g::pg_catalog.float8)", features,
                  out->intercept_bound, out->intercept);
}

void read_intercept_arguments(FunctionCallInfo fcinfo, int bound_arg, int intercept_arg, PreparedData* out) {
  if (PG_ARGISNULL(intercept_arg)) return;
  const double bound = PG_ARGISNULL(bound_arg) ? 0.0 : PG_GETARG_FLOAT8(bound_arg);
  const double b = PG_GETARG_FLOAT8(intercept_arg);
  require_intercept_arguments(bound, b);
  out->intercept_bound = bound;
  out->intercept = b;
}

void require_intercept_arguments(double bound, double b) {
  if (!(bound > 0) || !std::isfinite(bound) || !(b > 0) || !std::isfinite(b))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("feature_bound and intercept must be positive finite numbers"),
                    errdetail("feature_bound = %g, intercept = %g.", bound, b),
                    errhint("dp_train chooses them itself (docs/intercept.md).")));
}

}  // namespace dptrain::pg
