// inspect_training_data and prepare_training_data (training_data.h): the
// arguments against the source's columns, then the public facts n, d and
// the classes -- every check of a reader's rows happens here, before a
// private run is charged. The copy is training_copy.cpp's.
#include "training_data.h"

#include "core/preprocessing/feature_encoding.h"
#include "core/sgd/epoch_state.h"
#include "label_classes.h"
#include "load_specs.h"
#include "reading_errors.h"
#include "row_checks.h"
#include "shard_guard.h"
#include "sparsevec.h"
#include "training_classes.h"
#include "training_columns.h"
#include "training_spi.h"

namespace dptrain::pg {
namespace {

// The source as inspect_training_data's statements read it.
struct SourceColumns {
  char* relname;
  const char* qualified;  // schema.table, for the record
  // What the statements read: the name, or a Citus table's guarded read of
  // its shards (shard_guard.h).
  const char* from;
  // Encoded columns (encoded_features.h): the expression replaces the
  // features column; it gives float8[] of the encoding's dimension or NULL.
  bool encoded;
  const char* features;  // the features column's name ("features" when encoded), for the errors
  Oid feature_elem;
  LabelKind label_kind;
  Oid label_type;
  const char* x;  // the features and label expressions over `from`
  const char* y;
};

// The relation, its label and features columns and their types, checked.
SourceColumns resolve_source_columns(Oid relid, const char* label, const char* features, const PreparedData* out) {
  SourceColumns c;
  c.relname = require_training_relation(relid);
  c.qualified = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), c.relname);
  c.from = guarded_source_sql(relid);
  c.encoded = out->encoded_x != nullptr;
  c.features = c.encoded ? "features" : features;
  const AttrNumber y_att = require_column(relid, c.relname, label, "label");
  c.feature_elem = c.encoded ? FLOAT8OID
                             : check_feature_type(relid, require_column(relid, c.relname, c.features, "features"),
                                                  c.features);
  c.label_kind = check_label_type(relid, y_att, label);
  c.label_type = getBaseType(get_atttype(relid, y_att));
  c.x = c.encoded ? out->encoded_x : quote_identifier(c.features);
  c.y = quote_identifier(label);
  return c;
}

// The declared classes as classes of the label (NULL: none declared), and
// the refusal to read the classes from the data without read access.
ArrayType* checked_declared_classes(ArrayType* declared, const SourceColumns& c, const RunIdentities& ids) {
  if (declared != nullptr) {
    check_declared_class_count(declared);
    // '1.0' of a numeric label is the class '1' (label_classes.h).
    declared = canonical_declared_classes(declared, c.label_type);
    check_declared_class_shape(declared);
  }
  if (declared == nullptr && c.label_kind != LabelKind::Boolean && !ids.caller_reads)
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("the classes must be declared to train on \"%s\" without read access", c.relname),
                    errdetail("Reading the list of classes from the data would reveal it."),
                    errhint("Pass classes => ARRAY[...] (binary: negative class first).")));
  return declared;
}

// A reader's labels are checked in the same scan as its rows: against the
// declared classes (a declared array that array_position cannot search,
// more than one-dimensional, was refused by check_declared_class_shape
// before any row is read), or read from the data.
ClassScan class_scan_for(ArrayType* declared, LabelKind label_kind, const RunIdentities& ids) {
  if (!ids.caller_reads) return ClassScan::None;
  if (declared != nullptr) return ARR_NDIM(declared) <= 1 ? ClassScan::Declared : ClassScan::None;
  return label_kind == LabelKind::Boolean ? ClassScan::None : ClassScan::FromData;
}

// n and d of a reader's source, every row checked (row_checks.h).
void count_checked_rows(Oid relid, const char* label, const SourceColumns& c, ArrayType* declared, ClassScan mode,
                        const RunIdentities& ids, int64* n, int64* dim, ScannedClasses* scanned) {
  RowScan scan{relid,     c.relname,     c.from,    c.x,         c.y,  c.features, label, c.feature_elem,
               c.label_type, c.encoded, ids.reader, mode, declared};
  if (c.encoded) {
    // Each row encoded once (OFFSET 0 keeps the planner from copying the
    // expression into every aggregate), then checked like a features column.
    scan.from = psprintf("(SELECT %s AS x, %s AS y FROM %s OFFSET 0) r", c.x, c.y, c.from);
    scan.x = "x";
    scan.y = "y";
  }
  count_and_check_rows(scan, n, dim, scanned);
}

// n and d without read access: nothing may depend on the rows but through
// the release, so d is the encoding's (public) or the length of the longest
// one-dimensional feature array (the shape, public like n); the copy
// replaces every row the run cannot use by the fixed public row (0, first
// class) -- no error, no count.
void count_shape(Oid relid, const SourceColumns& c, const RunIdentities& ids, const PreparedData* out, int64* n,
                 int64* dim) {
  const char* sql =
      c.encoded ? psprintf("SELECT count(*)::int8 FROM %s", c.from)
      : c.feature_elem == sparsevec_type_oid()
          ? psprintf("SELECT count(*)::int8, coalesce(max(dptrain.sparsevec_dims(%s)), 0)::int8 FROM %s", c.x, c.from)
          : psprintf("SELECT count(*)::int8, "
                     "coalesce(max(cardinality(%s)) FILTER (WHERE array_ndims(%s) = 1), 0)::int8 FROM %s",
                     c.x, c.x, c.from);
  spi_exec_hiding_errors(ids, relid, sql, 0, nullptr, nullptr, SPI_OK_SELECT);
  *n = datum_int64(0, 1);
  if (c.encoded)
    DPT_CORE({
      *dim = dptrain::preprocessing::FeatureEncoding::from_json(nlohmann::json::parse(out->encoding)).dim();
    });
  else
    *dim = datum_int64(0, 2);
  if (*n == 0) refuse_no_rows(c.relname);
  if (!c.encoded && *dim == 0) refuse_empty_features();
}

// The model size is known now: refuse before copying any data.
void check_model_size(int nclasses, int64 dim) {
  const int64 models = nclasses == 2 ? 1 : nclasses;
  if (dim > INT_MAX || models * dim > dptrain::epoch_state::kMaxParameters)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("model too large"),
                    errdetail("%lld models x %lld features exceed the limit of %lld parameters.", (long long) models,
                              (long long) dim, (long long) dptrain::epoch_state::kMaxParameters),
                    errhint("Reduce the dimension, e.g. with a random projection, or the number of classes.")));
}

// A reader's rows have labels none of the declared classes names. A
// declared name that is no value of the label's type (text classes of a
// boolean label, as `dptrain load --positive` makes) is the likely cause.
void refuse_labels_outside(const char* label, ArrayType* declared, Oid label_type) {
  const char* non_value = declared_non_value(declared, label_type);
  const char* hint =
      non_value == nullptr
          ? "Declare every class, or filter the rows."
          : psprintf("\"%s\" is no %s value, so no row has it: declare the label's values as classes%s, or filter "
                     "the rows.",
                     non_value, format_type_be(label_type),
                     label_type == BOOLOID ? " (ARRAY['false', 'true'], or none: a boolean label's classes are those)"
                                           : "");
  ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                  errmsg("label column \"%s\" has values outside the declared classes", label), errhint("%s", hint)));
}

}  // namespace

void inspect_training_data(Oid relid, const char* label, const char* features, ArrayType* declared,
                           const RunIdentities& ids, PreparedData* out) {
  const SourceColumns c = resolve_source_columns(relid, label, features, out);
  // No classes declared: a table `dptrain load` made for a known data set
  // has its public label set in its load spec (load_specs.h), for its label
  // column y (a column added later is not the loader's).
  if (declared == nullptr && c.label_kind != LabelKind::Boolean && strcmp(label, "y") == 0) {
    declared = public_load_spec_classes(relid, ids);
    if (declared != nullptr)
      ereport(NOTICE, (errmsg("the classes are the public label set of \"%s\"'s load spec", c.relname),
                       errdetail("dptrain load declared them (--classes, or the IDX digits 0..9); they are not "
                                 "read from the rows."),
                       errhint("Pass classes => ARRAY[...] to train on other classes.")));
  }
  declared = checked_declared_classes(declared, c, ids);

  // Public facts first: n and d. A reader is told about every row it must
  // repair, in the same scan as its labels.
  const ClassScan class_scan = class_scan_for(declared, c.label_kind, ids);
  int64 n, dim;
  ScannedClasses scanned;
  if (ids.caller_reads)
    count_checked_rows(relid, label, c, declared, class_scan, ids, &n, &dim, &scanned);
  else
    count_shape(relid, c, ids, out, &n, &dim);

  const TrainingClasses classes = resolve_classes(declared, c.label_kind == LabelKind::Boolean, scanned.found, label);
  check_model_size(classes.count, dim);
  // Counted in the scan above.
  if (class_scan == ClassScan::Declared && scanned.outside > 0) refuse_labels_outside(label, declared, c.label_type);

  out->source_name = pstrdup(c.qualified);
  out->source_from = c.from;
  out->relid = relid;
  out->rows = n;
  out->dim = static_cast<int>(dim);
  out->nclasses = classes.count;
  out->classes = classes.names;
  out->classes_array = classes.array;
  out->classes_from_data = classes.from_data;
  out->feature_elem = c.feature_elem;
  out->sparse = c.feature_elem == sparsevec_type_oid();
  out->x = c.x;
  out->y = c.y;
  out->label_type = c.label_type;
}

void prepare_training_data(Oid relid, const char* label, const char* features, ArrayType* declared,
                           bool has_seed, int64 seed, const RunIdentities& ids, PreparedData* out) {
  inspect_training_data(relid, label, features, declared, ids, out);
  copy_training_data(ids, has_seed, seed, out);
}

}  // namespace dptrain::pg
