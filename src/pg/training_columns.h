// The label and features columns of a training or evaluation source: that
// they exist, and that their types are ones dptrain trains on (42804
// otherwise, before a cast fails on a value).
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

enum class LabelKind { Boolean, Numeric, Text };

// The column `column` of `relid` (ERROR if missing); `role` is "label" or
// "features", for the error.
AttrNumber require_column(Oid relid, const char* relname, const char* column, const char* role);

// The element type of the feature column (checked: a number type), or
// the type dptrain.sparsevec itself for a sparse column (docs/sparse.md).
Oid check_feature_type(Oid relid, AttrNumber attnum, const char* column);

// What the label column holds (checked: boolean, a number, text or an enum).
LabelKind check_label_type(Oid relid, AttrNumber attnum, const char* column);

// dp_evaluate's columns (existing): the label and feature types dp_train
// accepts, with its errors (42804), before a cast fails on a value. Returns
// the features' element type (FLOAT8OID without a features column), and the
// label's base type in *label_type (label_classes.h).
Oid check_evaluation_columns(Oid relid, const char* label, const char* features, Oid* label_type);

}  // namespace dptrain::pg
