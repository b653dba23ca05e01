// dptrain.beyond_float8(v numeric) -> boolean (STRICT): whether the cast of v
// to float8 fails -- decided as the cast decides it, so that the one
// definition of "no double holds this value" is the cast itself, not a
// bound written out in several statements. PostgreSQL's numeric_float8
// prints v (numeric_out) and reads the text with float8in, which takes
// strtod's value and refuses it when strtod reports ERANGE with a result of
// 0 (an underflow: |v| below half the smallest subnormal, about 2.47e-324)
// or of +-HUGE_VAL (|v| beyond DBL_MAX, 1.7976931348623157e308). A subnormal
// value (|v| < 2.2e-308) is an ERANGE with a result that is not 0: the cast
// accepts it, and so does this. NaN and +-Infinity cast (and are refused
// as non-finite). Used by a reader's row checks before the charge
// (row_checks.h: refused there) and by the reads of a role without read
// access (the copy, the read in place, encoded columns, dp_encoded_view's
// views: the fixed public row there), so both roles take every value alike.
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "pg_glue.h"

extern "C" {
#include "utils/numeric.h"
}

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_beyond_float8);

Datum dptrain_beyond_float8(PG_FUNCTION_ARGS) {
  Numeric v = PG_GETARG_NUMERIC(0);
  if (numeric_is_nan(v) || numeric_is_inf(v)) PG_RETURN_BOOL(false);
  char* text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v)));
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(text, &end);
  const bool beyond = errno == ERANGE && (d == 0.0 || std::isinf(d));
  pfree(text);
  PG_RETURN_BOOL(beyond);
}

}  // extern "C"
