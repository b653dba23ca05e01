// The rows of a run with an intercept (training/intercept.h): the features
// expression as the run sees it, and the check of the intercept's arguments.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

struct PreparedData;  // training_data.h

// The features expression `features` as the run sees it: with an intercept
// (out->intercept > 0), dptrain.intercept_row(features, R, b)
// (training/intercept.h), the numbers printed exactly (%.17g round-trips a
// double); otherwise a copy of `features`.
char* with_intercept(const char* features, const PreparedData* out);

// The intercept of the controller's SQL functions: arguments `bound_arg`
// (feature_bound, NULL: 0) and `intercept_arg` (intercept), checked, into
// out->intercept_bound and out->intercept; nothing when the intercept is NULL.
void read_intercept_arguments(FunctionCallInfo fcinfo, int bound_arg, int intercept_arg, PreparedData* out);

// ERROR 22023 unless the intercept's clipping bound R and constant b are
// positive finite numbers (training/intercept.h): dptrain.intercept_row and
// training_prepare take them from SQL.
void require_intercept_arguments(double bound, double b);

}  // namespace dptrain::pg
