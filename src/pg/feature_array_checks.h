// The checks every per-row aggregate makes of its feature array before it
// reads a value (the epoch aggregate's errors, so every pass says the same
// to a reader; an analyst's copy has replaced such rows already).
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// float8[] or real[], one-dimensional, no NULL element; else ERROR.
inline void require_feature_array(ArrayType* x) {
  const Oid elem = ARR_ELEMTYPE(x);
  if (elem != FLOAT8OID && elem != FLOAT4OID)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH), errmsg("features must be float8[] or real[]"),
                    errhint("Cast the features to float8[].")));
  if (ARR_NDIM(x) > 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature array must be one-dimensional"),
                    errhint("Every row's features must be a one-dimensional array.")));
  if (ARR_HASNULL(x) && array_contains_nulls(x))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("feature array must not contain NULL elements"),
                    errhint("Remove or repair rows with NULL features before training.")));
}

}  // namespace dptrain::pg
