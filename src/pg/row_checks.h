// A reader's check of every row of the source before the run (refuse,
// never skip: the caller repairs its data): n and d, and every row's
// features and label, in one scan -- with the labels against the declared
// classes, or the distinct labels read from the data. The first problem is
// an ERROR with a hint.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// What a reader's one scan also finds out about the labels (the classes
// step of inspect_training_data uses it; count_and_check_rows raises no
// error about it itself, so that every error comes in the order of the
// checks).
enum class ClassScan {
  None,      // a boolean label without declared classes: nothing to check
  Declared,  // count the rows whose label is not a declared class ($1)
  FromData,  // the first kMaxClasses + 1 distinct labels, in the label's order
};
struct ScannedClasses {
  int64 outside = 0;           // Declared
  ArrayType* found = nullptr;  // FromData: text[] (NULL: no rows)
};

// The scan: what it reads and checks, and the names its errors give.
struct RowScan {
  Oid relid;
  const char* relname;
  const char* from;      // what the statement reads after FROM
  const char* x;         // the features and label expressions over `from`
  const char* y;
  const char* features;  // the columns' names, for the errors
  const char* label;
  Oid feature_elem;      // check_feature_type's
  Oid label_type;        // the label column's base type
  bool encoded;          // the features are encoded columns (encoded_features.h)
  Oid reader;
  ClassScan mode;
  ArrayType* declared;   // Declared: the declared classes (canonical)
};

// Runs the scan (requires SPI_connect()): n in *rows, d in *dim, what it
// found about the labels in *classes.
void count_and_check_rows(const RowScan& scan, int64* rows, int64* dim, ScannedClasses* classes);

// The errors of a table without rows, and of rows with no features.
void refuse_no_rows(const char* relname);
void refuse_empty_features();

// A numeric[] `x` (SQL) holding a value the cast to float8[] refuses (beyond
// DBL_MAX, or rounding to 0: dptrain.beyond_float8, the one definition of the
// bounds): the predicate, and dp_train's error for it. A reader is refused on
// it; the reads of a role without read access make such a row the fixed
// public row with the same predicate, so both train on every other value
// (subnormal ones too) as its double.
const char* numeric_beyond_float8_sql(const char* x);
void refuse_numeric_beyond_float8(const char* features);

}  // namespace dptrain::pg
