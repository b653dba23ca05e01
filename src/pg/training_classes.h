// The classes of a training run: declared by the caller, implied by a
// boolean label, or read from the data (then outside the privacy guarantee:
// the model's metadata says so). At most kMaxClasses of them.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

constexpr int kMaxClasses = 1000;

// At most kMaxClasses declared classes: checked first thing (the size of an
// argument, public), before the scan that searches the declared array for
// every row's label -- O(n K): 10^5 classes over 10^5 rows ran 20 s before
// this refusal came.
void check_declared_class_count(ArrayType* declared);

// The aggregate counting the rows whose label `y` (of base type
// `label_type`) is not a declared class, and its parameter $1 (of `type`).
struct OutsideCount {
  const char* sql;
  Oid type;
  Datum value;
};
OutsideCount outside_declared(const char* y, Oid label_type, ArrayType* declared);

// A run's classes, as the copy maps them (array_position(classes, <class
// text>) - 1) and as the model stores them.
struct TrainingClasses {
  ArrayType* array;  // text[], subscripts from 1
  char** names;
  int count;
  bool from_data;
};

// The declared classes' own shape: one-dimensional, no NULLs, none listed
// twice (an ERROR otherwise). Checked before any row is read (they were
// refused after the scan, which on a large table took as long as the scan).
void check_declared_class_shape(ArrayType* declared);

// The classes `declared` (canonical already, label_classes.h), else those
// of a boolean label, else `found` in the data (text[] of the first
// kMaxClasses + 1 distinct labels, NULL for no rows). ERROR unless there are
// 2 to kMaxClasses distinct ones.
TrainingClasses resolve_classes(ArrayType* declared, bool boolean_label, ArrayType* found, const char* label);

}  // namespace dptrain::pg
