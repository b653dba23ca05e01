// Preparing a table for training (shared by dp_train and the CLI's
// controller through dptrain.training_prepare): resolve and check the
// table and columns, count the rows, check the feature dimension and
// labels, and materialize one random permutation of (x, y) into a
// session-private temp table (i, x, y) with y mapped to the class index and
// i numbering the rows 1..n.
//
// The parts: training_columns.h (the columns and their types),
// row_checks.h (a reader's scan of every row), training_classes.h (the
// classes), training_data.cpp (inspect_training_data), training_copy.cpp
// (copy_training_data), training_tables.h (reshuffle, split, drop),
// intercept_rows.h, and the SQL functions in training_data_sql.cpp.
#pragma once

#include "access.h"

namespace dptrain::pg {

struct PreparedData {
  char* shuffled;         // pg_temp.dptrain_shuffled_N (quoted, ready for SQL); after the copy
  char* source_name;      // schema.table, for the record
  // What the statements read after FROM: source_name, or a Citus table's
  // guarded read of its shards (shard_guard.h).
  const char* source_from = nullptr;
  Oid relid = InvalidOid;  // the source
  int64 rows;
  int dim;
  int nclasses;
  char** classes;         // binary: {negative, positive}
  bool classes_from_data;
  // for the copy
  ArrayType* classes_array;
  Oid feature_elem;
  // The features are dptrain.sparsevec (docs/sparse.md): the copy keeps them
  // sparse (x dptrain.sparsevec) and only sparse-capable runs may start.
  bool sparse = false;
  const char* x;          // quoted column names
  const char* y;
  Oid label_type = InvalidOid;  // the label column's base type: its class text is label_class_sql's
  // > 0: copy the rows as (x clipped to intercept_bound, intercept) (training/intercept.h)
  double intercept = 0;
  double intercept_bound = 0;
  // Features from ordinary columns (encoded_features.h), set before
  // inspect_training_data: the encoding (JSON text) and the features
  // expression that replaces the features column in every statement.
  const char* encoding = nullptr;
  const char* encoded_x = nullptr;
  // dp_train's features => ARRAY[...] (set before begin_run, which builds
  // encoding and encoded_x from it).
  const struct FeatureColumns* columns = nullptr;
  // Set before begin_run by dp_train when the run's lambda, schedule and
  // step are final before the public facts are known (the caller named the
  // algorithm or gave the step: core/training/defaults.h changes nothing
  // else the checks read): begin_run then has Algorithm::check_run_arguments
  // refuse them before the scan that counts n and d, not only before the charge.
  bool run_arguments_final = false;
  // A Citus hash-distributed source, trained in place (distributed_source.h):
  // no copy is made (shuffled stays NULL).
  bool distributed;
  char* distribution_column;
  int nshards;
  int64* shard_rows;
  char* x_expr;           // SQL over the source: features as float8[], class index as float8, row key as int8
  char* y_expr;
  char* row_key;
  char* shard_guard = nullptr;  // distributed: the guard (a one-time filter) of every pass (shard_guard.h)
  // A plain local table read in place (local_source.h): no copy either
  // (shuffled stays NULL); the passes read x_expr / y_expr over the source.
  bool in_place = false;
  // Set before copy_training_data: the run does not depend on the order of
  // the rows (Algorithm::order_free), so the copy keeps the source's scan
  // order, without the shuffle (docs/performance.md, "Order-free copies").
  bool unordered_copy = false;

  // The run reads the source itself (in place or a Citus table's shards),
  // not dptrain's temporary copy of it.
  bool reads_source() const { return in_place || distributed; }
};

// Requires SPI_connect(). `features` is ignored when out->encoded_x is set
// (then d is the encoding's, a public fact). `declared_classes` may be NULL (then the classes
// come from the label type or, failing that, from the data -- the latter only
// for a caller that may read the data). The relation is read with the rights
// of ids.reader in a security-restricted operation; the temp table belongs to
// ids.runner (access.h). A reader is told about every row it must repair;
// for a caller that may not read the data no error depends on the rows:
// n and d (the shape) are counted, and the rows it could not use are
// replaced by a fixed public row in the copy.
//
// In two steps, so that a private run can be charged in between:
// inspect_training_data: the arguments against the columns, then the public
// facts (n, d, classes) -- every check of a reader's rows happens here;
// copy_training_data: one random permutation of (x, y) into the temp table.
void inspect_training_data(Oid relid, const char* label, const char* features, ArrayType* declared_classes,
                           const RunIdentities& ids, PreparedData* out);
void copy_training_data(const RunIdentities& ids, bool has_seed, int64 seed, PreparedData* out);
// Both (the controller's dptrain.training_prepare).
void prepare_training_data(Oid relid, const char* label, const char* features, ArrayType* declared_classes,
                           bool has_seed, int64 seed, const RunIdentities& ids, PreparedData* out);

}  // namespace dptrain::pg
