#include "models.h"
#include "training_data.h"

#include <cmath>
#include <optional>

extern "C" {
#include "catalog/namespace.h"
#include "nodes/bitmapset.h"
#include "nodes/makefuncs.h"
#include "storage/bufmgr.h"
}

#include "bucket_shuffle.h"
#include "core/sgd/epoch_state.h"
#include "core/training/intercept.h"
#include "core/preprocessing/feature_encoding.h"
#include "label_classes.h"
#include "reading_errors.h"
#include "shard_guard.h"
#include "sparsevec.h"
#include "statement_checks.h"


namespace dptrain::pg {
namespace {

constexpr int kMaxClasses = 1000;
// From this many rows (public: n is), the shuffle says when it starts and
// ends (issue 16, item 7); smaller copies take well under a second.
constexpr int64 kProgressRows = 100000;
int shuffle_counter = 0;
// The copies of seeded runs in this session (by their number N in
// pg_temp.dptrain_shuffled_N): their reshuffles keep ORDER BY random().
Bitmapset* seeded_copies = nullptr;

enum class LabelKind { Boolean, Numeric, Text };

// The order of a copy's rows: a uniformly random one drawn by the bucket
// shuffle (every real run of an algorithm that needs one), the query's own
// (ORDER BY random() after setseed: seeded runs, tests only), or the
// source's scan order (runs that do not depend on the order at all:
// PreparedData::unordered_copy).
enum class CopyOrder { Bucket, Query, Source };

void spi_exec(const char* sql, int nargs, Oid* types, Datum* values, int expected) {
  const int rc = nargs > 0 ? SPI_execute_with_args(sql, nargs, types, values, nullptr, false, 0)
                           : SPI_execute(sql, false, 0);
  if (rc != expected) elog(ERROR, "dptrain: SPI failed (%d) on: %s", rc, sql);
}

// Runs `sql`, which names the source (`read.source`) by text, with the
// rights of `role` in a security-restricted operation: for every query that
// reads the source relation (access.h). Checked before it runs: parsed, it
// must read that relation and nothing else by name (statement_checks.h: the
// name is resolved again here, and a schema renamed meanwhile by another
// session could put a view there whose functions would run as `role`, the
// caller or the relation's owner).
void spi_exec_as_reader(Oid role, const SourceRead& read, const char* sql, int nargs, Oid* types, Datum* values,
                        int expected) {
  IdentitySwitch sw;
  switch_identity(&sw, role, true);
  const int rc = execute_checked(sql, nargs, types, values, false, 0, read);
  if (rc != expected) elog(ERROR, "dptrain: SPI failed (%d) on: %s", rc, sql);
  restore_identity(&sw);
}

SourceRead source_read(Oid relid) {
  SourceRead read;
  read.source = relid;
  return read;
}

// The element type of the feature column (checked: a number type), or
// the type dptrain.sparsevec itself for a sparse column (docs/sparse.md).
Oid check_feature_type(Oid relid, AttrNumber attnum, const char* column) {
  const Oid type = getBaseType(get_atttype(relid, attnum));
  if (OidIsValid(type) && type == sparsevec_type_oid()) return type;
  const Oid elem = get_element_type(type);
  if (elem != FLOAT8OID && elem != FLOAT4OID && elem != NUMERICOID && elem != INT2OID && elem != INT4OID &&
      elem != INT8OID)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("feature column \"%s\" must be an array of numbers (float8[] or real[])", column),
                    errdetail("Its type is %s.", format_type_be(get_atttype(relid, attnum))),
                    errhint("Store the features of each row in one float8[] or dptrain.sparsevec column "
                            "(dptrain load does).")));
  return elem;
}

LabelKind check_label_type(Oid relid, AttrNumber attnum, const char* column) {
  const Oid type = getBaseType(get_atttype(relid, attnum));
  switch (type) {
    case BOOLOID: return LabelKind::Boolean;
    case INT2OID:
    case INT4OID:
    case INT8OID:
    case NUMERICOID:
    case FLOAT4OID:
    case FLOAT8OID: return LabelKind::Numeric;
    case TEXTOID:
    case VARCHAROID:
    case BPCHAROID:
    case NAMEOID: return LabelKind::Text;
    default:
      // An enum's class is its text, as a text label's (label_classes.h);
      // classes read from the data come in the enum's
      // own order (the ORDER BY of row_checks_sql), the declared one.
      if (type_is_enum(type)) return LabelKind::Text;
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("label column \"%s\" must be boolean, a number, text or an enum", column),
                      errdetail("Its type is %s.", format_type_be(get_atttype(relid, attnum))),
                      errhint("Use a boolean, integer, text or enum label column (cast it in a view).")));
  }
  return LabelKind::Text;
}

int64 datum_int64(int row, int col) {
  bool isnull;
  const Datum d = SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, &isnull);
  return isnull ? 0 : DatumGetInt64(d);
}

// At most kMaxClasses declared classes: checked first thing (the size of an
// argument, public), before the scan that searches the declared array for
// every row's label -- O(n K): 10^5 classes over 10^5 rows ran 20 s before
// this refusal came.
void check_declared_class_count(ArrayType* declared) {
  if (ArrayGetNItems(ARR_NDIM(declared), ARR_DIMS(declared)) > kMaxClasses)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("too many classes"),
                    errdetail("%d classes were declared; at most %d are supported.",
                              ArrayGetNItems(ARR_NDIM(declared), ARR_DIMS(declared)), kMaxClasses),
                    errhint("Classification supports up to %d classes.", kMaxClasses)));
}

// The declared classes as C strings: one-dimensional, no NULLs, no
// duplicates, at most kMaxClasses (checked before anything is copied).
char** declared_class_names(ArrayType* declared, int* nclasses) {
  if (ARR_NDIM(declared) != 1 || (ARR_HASNULL(declared) && array_contains_nulls(declared)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("classes must be a one-dimensional text array without NULLs"),
                    errhint("For example classes => ARRAY['no', 'yes'] (binary: negative class first).")));
  check_declared_class_count(declared);
  Datum* items;
  deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, nclasses);
  char** names = static_cast<char**>(palloc(sizeof(char*) * (*nclasses > 0 ? *nclasses : 1)));
  for (int i = 0; i < *nclasses; ++i) {
    names[i] = TextDatumGetCString(items[i]);
    for (int j = 0; j < i; ++j)
      if (strcmp(names[i], names[j]) == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("class \"%s\" is listed twice", names[i]),
                        errhint("List every class once.")));
  }
  return names;
}

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

// A declared class that is the text of an int8 value as int8out writes it
// ("-12"; not "+12", "012" or " 12", which no value's text is).
bool canonical_int8(const char* s, int64* value) {
  errno = 0;
  char* end = nullptr;
  const long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || strcmp(psprintf("%lld", v), s) != 0) return false;
  *value = v;
  return true;
}

// The aggregate counting the rows whose label is not a declared class, and
// its parameter $1. What is checked is the label's class text
// (label_classes.h): the copy maps array_position(classes, <class text>).
// For a boolean or integer label each value has one text ('true', '-12'),
// so the same rows are those whose value is not the value of a declared
// class, compared as values without forming every row's text (the text and
// its search cost about half a scan: docs/performance.md, "The validation");
// a declared class that is no value's text ('yes'; an integer label's '01'
// is '1' already: canonical_declared_classes) matches no row either way,
// and a NULL label counts as outside as before.
struct OutsideCount {
  const char* sql;
  Oid type;
  Datum value;
};
OutsideCount outside_declared(const char* y, Oid label_type, ArrayType* declared) {
  Datum* items;
  bool* nulls;
  int k;
  deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &k);
  const bool boolean = label_type == BOOLOID;
  if (!boolean && label_type != INT2OID && label_type != INT4OID && label_type != INT8OID)
    return {psprintf("count(*) FILTER (WHERE array_position($1, %s) IS NULL)::int8", label_class_sql(y, label_type)),
            TEXTARRAYOID, PointerGetDatum(declared)};
  Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * (k > 0 ? k : 1)));
  int m = 0;
  for (int i = 0; i < k; ++i) {
    if (nulls[i]) continue;  // refused by declared_class_names
    const char* name = TextDatumGetCString(items[i]);
    int64 v;
    if (boolean && (strcmp(name, "true") == 0 || strcmp(name, "false") == 0))
      values[m++] = BoolGetDatum(strcmp(name, "true") == 0);
    else if (!boolean && canonical_int8(name, &v))
      values[m++] = Int64GetDatum(v);
  }
  ArrayType* accepted = boolean ? construct_array(values, m, BOOLOID, 1, true, TYPALIGN_CHAR)
                                : construct_array(values, m, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
  return {psprintf("count(*) FILTER (WHERE NOT coalesce(%s = ANY($1), false))::int8", y),
          static_cast<Oid>(boolean ? BOOLARRAYOID : INT8ARRAYOID), PointerGetDatum(accepted)};
}

// The statement of count_and_check_rows. `checks` are the per-row checks as
// aggregates named n, dmin, dmax, null_x, null_y, multi_dim, nan_y,
// out_of_range, not_finite, null_elem, norm_overflow. Declared adds one more aggregate (`outside`); FromData groups the same
// aggregates by the label (one scan: the groups are few, as the classes
// are) and adds them up over the groups, so that the counts are the same
// as without the grouping and the distinct labels come with them. (Before,
// the declared classes and the classes read from the data each cost a
// second scan of the source: docs/performance.md, "The validation".)
//
// A class is a label's class text (label_classes.h: the copy maps
// array_position(classes, <class text>)), one text per value of the label
// type's =. So the labels are grouped by their value alone, each group's
// text formed once. (Grouped by value and text, equal numbers with other
// texts -- numeric 1 and 1.0, float8 0 and -0 -- were classes of their own,
// although PostgreSQL's = and GROUP BY take them as one; grouped by value
// and named by one of their texts, the rows of the other texts became NULL
// labels in the copy: the run failed after its charge.) A text label's
// class is its text under the label's collation, which array_position
// uses: equal under a nondeterministic collation, 'Yes' and 'yes' are one
// class, as the copy maps them.
const char* row_checks_sql(const char* checks, const char* y, const char* from, ClassScan mode,
                           const char* outside, Oid label_type) {
  switch (mode) {
    case ClassScan::None: return psprintf("SELECT %s, 0::int8, NULL::text[] FROM %s", checks, from);
    case ClassScan::Declared: return psprintf("SELECT %s, %s, NULL::text[] FROM %s", checks, outside, from);
    case ClassScan::FromData:
      // ORDER BY c: the label type's own order, as SELECT DISTINCT ... ORDER BY 1 had it.
      return psprintf("WITH g AS MATERIALIZED (SELECT %s AS c, %s FROM %s GROUP BY 1) "
                      "SELECT sum(n)::int8, min(dmin)::int8, max(dmax)::int8, sum(null_x)::int8, sum(null_y)::int8, "
                      "sum(multi_dim)::int8, sum(nan_y)::int8, sum(out_of_range)::int8, sum(not_finite)::int8, "
                      "sum(null_elem)::int8, sum(norm_overflow)::int8, 0::int8, "
                      "(SELECT array_agg(%s ORDER BY c) FROM (SELECT c FROM g ORDER BY c LIMIT %d) l) FROM g",
                      y, checks, from, label_class_sql("c", label_type), kMaxClasses + 1);
  }
  return nullptr;
}

}  // namespace

// A numeric[] array holding a value that no double represents (the cast to
// float8[] fails on it): above DBL_MAX, or not 0 and so close to 0 that it
// rounds to 0 (float8in refuses that underflow: below half the smallest
// subnormal, 2.47032822920623272e-324; the bound is just above it). NaN and
// +-Infinity are not counted (abs(v) >= 'Infinity': NaN sorts above every
// number): they cast, and are refused as non-finite.
const char* numeric_beyond_float8_sql(const char* x) {
  return psprintf("EXISTS (SELECT FROM unnest(%s) v WHERE (abs(v) > 1.7976931348623157e308 AND abs(v) < 'Infinity') "
                  "OR (v <> 0 AND abs(v) < 2.4703282292062328e-324))",
                  x);
}

void refuse_numeric_beyond_float8(const char* features) {
  ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                  errmsg("feature column \"%s\" has values beyond the range of float8", features),
                  errdetail("A float8 holds magnitudes up to 1.8e308, and none between 0 and 2.5e-324."),
                  errhint("Scale the features (dptrain load normalizes rows to norm 1); round values too close "
                          "to 0 for float8 to 0.")));
}

namespace {

// A reader's run: n and d, every row checked, in one scan of the source
// (with the labels against the declared classes, or the distinct labels:
// `mode`, the result in *classes); the first problem is an ERROR with a
// hint (refuse, never skip: the caller repairs its data).
void count_and_check_rows(Oid relid, const char* relname, const char* from, const char* x, const char* y,
                          const char* features, const char* label, Oid feature_elem, Oid label_type,
                          bool encoded, Oid reader, ClassScan mode, ArrayType* declared, int64* rows, int64* dim,
                          ScannedClasses* classes) {
  // Only float4, float8 and numeric labels can be NaN (NaN = NaN is true
  // for them in PostgreSQL): compared as values, not as text.
  const char* float_type = label_type == FLOAT4OID   ? "pg_catalog.float4"
                           : label_type == FLOAT8OID ? "pg_catalog.float8"
                           : label_type == NUMERICOID ? "pg_catalog.numeric"
                                                      : nullptr;
  // A sparse row's length is its declared dimension; the type has no NULL
  // elements, NaN or more than one dimension (its input refuses them).
  const bool sparse = feature_elem == sparsevec_type_oid();
  const char* length = sparse ? psprintf("dptrain.sparsevec_dims(%s)", x) : psprintf("cardinality(%s)", x);
  // NULL elements and NaN or infinite float8 and real values: the copy and the
  // epoch refused them, after a private run's charge (a reader's run refuses
  // every row it cannot use before it). array_position searches
  // one-dimensional arrays only (a multi-dimensional one is refused anyway).
  const bool float_elements = feature_elem == FLOAT8OID || feature_elem == FLOAT4OID;
  const char* null_elements =
      sparse ? "0::int8"
             : psprintf("count(*) FILTER (WHERE CASE WHEN array_ndims(%s) = 1 THEN "
                        "pg_catalog.array_position(%s, NULL) IS NOT NULL END)::int8",
                        x, x);
  const char* float_not_finite =
      psprintf("count(*) FILTER (WHERE %s OPERATOR(pg_catalog.&&) "
               "'{NaN,Infinity,-Infinity}'::%s)::int8",
               x, feature_elem == FLOAT4OID ? "pg_catalog.float4[]" : "pg_catalog.float8[]");
  // Finite values too large to square (|v| > 1.3e154): the row's squared
  // norm is infinite, and every pass refuses the row ("feature values are too
  // large", refuse_feature_row) -- after a private run's charge, and an
  // analyst's copy replaces it (dptrain.usable_row). The same function tells
  // it here, before the charge. Only float8 and numeric elements and sparse
  // rows can overflow: the squares of real and integer values stay far below
  // DBL_MAX. Counted on one-dimensional rows whose values all cast (numeric);
  // a row it counts for another reason (NULL, NaN, length) is refused by
  // that reason's check first. Encoded rows are built bounded: not counted.
  //
  // A float8[] column (the common case) is not read once more for it: every
  // function of a row detoasts it again, which for wide rows (Reuters, 8,315
  // values) doubled the time of this scan. Its not_finite counts instead the
  // one-dimensional rows dptrain.usable_row refuses (a NaN or infinity, a NULL
  // element, or the norm) and the others holding a NaN or infinity, as
  // before; only when that count is not 0 does a second scan (below) tell a
  // NaN from the norm.
  const bool float8_norm = feature_elem == FLOAT8OID && !encoded;
  if (float8_norm)
    float_not_finite = psprintf(
        "count(*) FILTER (WHERE CASE WHEN array_ndims(%s) = 1 THEN NOT dptrain.usable_row(%s, 0, cardinality(%s)) "
        "ELSE %s OPERATOR(pg_catalog.&&) '{NaN,Infinity,-Infinity}'::pg_catalog.float8[] END)::int8",
        x, x, x, x);
  const char* norm_overflow =
      encoded || float8_norm ? "0::int8"
      : sparse
          ? psprintf("count(*) FILTER (WHERE NOT dptrain.usable_row(%s, 0, dptrain.sparsevec_dims(%s)))::int8", x, x)
      : feature_elem == NUMERICOID
          ? psprintf("count(*) FILTER (WHERE array_ndims(%s) = 1 AND NOT %s AND "
                     "NOT dptrain.usable_row(%s::pg_catalog.float8[], 0, cardinality(%s)))::int8",
                     x, numeric_beyond_float8_sql(x), x, x)
          : "0::int8";
  const char* checks = psprintf(
      "count(*)::int8 AS n, min(%s)::int8 AS dmin, max(%s)::int8 AS dmax, "
      "count(*) FILTER (WHERE %s IS NULL)::int8 AS null_x, count(*) FILTER (WHERE %s IS NULL)::int8 AS null_y, "
      "%s AS multi_dim, %s AS nan_y, %s AS out_of_range, %s AS not_finite, %s AS null_elem, %s AS norm_overflow",
      length, length, x, y, sparse ? "0::int8" : psprintf("count(*) FILTER (WHERE array_ndims(%s) > 1)::int8", x),
      float_type ? psprintf("count(*) FILTER (WHERE %s::%s = 'NaN'::%s)::int8", y, float_type, float_type) : "0::int8",
      // numeric values beyond float8's range would fail the cast below
      // without a hint, after the charge. NaN and +-Infinity are not "beyond
      // the range" (they were said to be, 22003 with a hint to scale them):
      // the error of a float8 NaN.
      feature_elem == NUMERICOID
          ? psprintf("count(*) FILTER (WHERE %s)::int8", numeric_beyond_float8_sql(x))
          : "0::int8",
      feature_elem == NUMERICOID
          ? psprintf("count(*) FILTER (WHERE EXISTS (SELECT FROM unnest(%s) v WHERE abs(v) >= 'Infinity'))::int8", x)
          : float_elements ? float_not_finite : "0::int8",
      null_elements, norm_overflow);
  const OutsideCount outside = mode == ClassScan::Declared ? outside_declared(y, label_type, declared)
                                                            : OutsideCount{nullptr, InvalidOid, (Datum) 0};
  Oid types[1] = {outside.type};
  Datum values[1] = {outside.value};
  spi_exec_as_reader(reader, source_read(relid), row_checks_sql(checks, y, from, mode, outside.sql, label_type),
                     mode == ClassScan::Declared ? 1 : 0, types, values, SPI_OK_SELECT);
  const int64 n = datum_int64(0, 1), dmin = datum_int64(0, 2), dmax = datum_int64(0, 3);
  const int64 null_x = datum_int64(0, 4), null_y = datum_int64(0, 5), multi_dim = datum_int64(0, 6),
              nan_y = datum_int64(0, 7), out_of_range = datum_int64(0, 8), null_elem = datum_int64(0, 10);
  int64 not_finite = datum_int64(0, 9), norm_overflow_rows = datum_int64(0, 11);
  classes->outside = datum_int64(0, 12);
  bool isnull;
  const Datum found = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 13, &isnull);
  classes->found = isnull ? nullptr : DatumGetArrayTypePCopy(found);
  if (float8_norm && not_finite > 0) {
    // Some rows are unusable (above): those holding a NaN or infinity are
    // refused as such; the others, if no NULL element explains them, for
    // their norm.
    spi_exec_as_reader(reader, source_read(relid),
                       psprintf("SELECT count(*) FILTER (WHERE %s OPERATOR(pg_catalog.&&) "
                                "'{NaN,Infinity,-Infinity}'::pg_catalog.float8[])::int8 FROM %s",
                                x, from),
                       0, nullptr, nullptr, SPI_OK_SELECT);
    norm_overflow_rows = not_finite;
    not_finite = datum_int64(0, 1);
  }
  if (n == 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("table \"%s\" has no rows to train on", relname),
                    errhint("Train on a table with at least one row.")));
  if (null_x > 0 && encoded)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("%lld rows have a NULL or NaN number or boolean among the features", (long long) null_x),
                    errdetail("Such a row has no features (docs/encoding.md)."),
                    errhint("Remove or repair those rows (or filter them in a view) before training.")));
  if (null_x > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("feature column \"%s\" contains NULL values", features),
                    errhint("Remove or repair rows with NULL features before training.")));
  if (null_y > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("label column \"%s\" contains NULL values", label),
                    errhint("Remove rows with NULL labels before training.")));
  if (nan_y > 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("label column \"%s\" contains NaN", label),
                    errhint("NaN is not a class: remove or repair those rows.")));
  if (not_finite > 0)
    ereport(ERROR, (errcode(ERRCODE_FLOATING_POINT_EXCEPTION),
                    errmsg("feature column \"%s\" contains NaN or infinite values", features),
                    errhint("Remove or repair rows with NaN or infinite features before training.")));
  if (out_of_range > 0) refuse_numeric_beyond_float8(features);
  if (multi_dim > 0)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("feature column \"%s\" contains multi-dimensional arrays", features),
                    errhint("Every row's features must be a one-dimensional array.")));
  if (null_elem > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("feature column \"%s\" contains arrays with NULL elements", features),
                    errhint("Remove or repair rows with NULL features before training.")));
  if (dmin != dmax)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature arrays have different lengths"),
                    errdetail("Lengths range from %lld to %lld.", (long long) dmin, (long long) dmax),
                    errhint("Every row must have the same number of features.")));
  if (dmin == 0)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature arrays are empty"),
                    errhint("Rows need at least one feature.")));
  // The passes' words and SQLSTATE (refuse_feature_row), now before the charge.
  if (norm_overflow_rows > 0)
    ereport(ERROR, (errcode(ERRCODE_FLOATING_POINT_EXCEPTION), errmsg("feature values are too large"),
                    errdetail("The squared norm of a feature vector overflows a double."),
                    errhint("Scale the features (dptrain load normalizes rows to norm 1).")));
  *rows = n;
  *dim = dmin;
}

// The rows of a copy: "SELECT i, <select> FROM <source>", where `select`
// names columns of the source and i is the row's position in the source's
// scan (1..n, not data).
//   unseeded (every real run): in the source's order; fill_copy puts them
//     in a uniformly random order with the bucket shuffle (bucket_shuffle.h:
//     no sort, randomness from the OS CSPRNG; PostgreSQL's random(), not a
//     CSPRNG, plays no part).
//   seeded (tests only): ORDER BY random() after setseed(seed), evaluated
//     per row in scan order exactly as before, so seeded runs keep their
//     permutation and row numbers (the models pinned by
//     test/regress/sql/engine_pins.sql).
//   order-free runs (PreparedData::unordered_copy, seeded or not): in the
//     source's order, inserted as they come (no shuffle).
// Sorting whole rows (the former unseeded copy, ordered by a keyed SipHash of
// i) cost an external sort; sorting narrow (ctid, i) rows and fetching each
// row by ctid was slower still (docs/performance.md).
const char* shuffled_rows_sql(const char* from, const char* select, CopyOrder order) {
  return psprintf("SELECT row_number() OVER () AS i, %s FROM %s%s", select, from,
                  order == CopyOrder::Query ? " ORDER BY random()" : "");
}

// The relation of a temp table named pg_temp.<bare>.
Oid temp_table_oid(const char* bare) {
  return RangeVarGetRelid(makeRangeVar(pstrdup("pg_temp"), pstrdup(bare), -1), NoLock, false);
}

struct FillCopy {
  const char* shuffled;
  const char* select_sql;
  int nargs;
  Oid* types;
  Datum* values;
  CopyOrder order;
  Oid reader;
  Oid source;
  int64 rows;
  int64 row_bytes;
  int64 copied;  // out: the rows inserted
};

void fill_copy_as_reader(void* arg) {
  FillCopy* f = static_cast<FillCopy*>(arg);
  if (f->order != CopyOrder::Bucket) {
    SourceRead read = source_read(f->source);
    read.insert_target = temp_table_oid(f->shuffled + strlen("pg_temp."));
    spi_exec_as_reader(f->reader, read, psprintf("INSERT INTO %s %s", f->shuffled, f->select_sql), f->nargs, f->types,
                       f->values, SPI_OK_INSERT);
    f->copied = static_cast<int64>(SPI_processed);
    return;
  }
  const Oid relid = temp_table_oid(f->shuffled + strlen("pg_temp."));
  IdentitySwitch sw;
  switch_identity(&sw, f->reader, true);
  const SourceRead read = source_read(f->source);
  f->copied = bucket_shuffle_insert(relid, f->select_sql, f->nargs, f->types, f->values, f->rows, f->row_bytes, &read);
  restore_identity(&sw);
}

// Fills the empty temp table `shuffled` with the rows (i, x, y) of
// `select_sql` (run with the rights of ids.reader): Bucket, a uniformly
// random order drawn by the bucket shuffle; otherwise the query's own order
// (seeded: ORDER BY random(); Source: the scan order). `rows` and
// `row_bytes` size its buckets. Without read
// access an error of the source's code (a view's expression) would print a
// row: it is hidden (reading_errors.h).
void fill_copy(const char* shuffled, const char* select_sql, int nargs, Oid* types, Datum* values, CopyOrder order,
               const RunIdentities& ids, Oid source, int64 rows, int64 row_bytes) {
  FillCopy f = {shuffled, select_sql, nargs, types, values, order, ids.reader, source, rows, row_bytes, -1};
  run_hiding_errors(ids, source, fill_copy_as_reader, &f);
  // The rows were counted before the charge, under another snapshot in a
  // READ COMMITTED transaction: a write committed meanwhile gave a copy of
  // another size, which every pass then refused as an internal error (XX000
  // "the epoch did not see every row exactly once", 22000 "row numbers are
  // not 1..n" for DP-SGD, XX000 for tuning parts). Same as a pass read in
  // place (core/engine/table_changed.h); no count named.
  if (f.copied != rows)
    ereport(ERROR, (errcode(DPTRAIN_ERRCODE_TABLE_CHANGED), errmsg("the table changed during training"),
                    errdetail("The copy did not read the rows counted before the run (the count fixes its plan and "
                              "its noise)."),
                    errhint("Train on a table no one writes while the run lasts (a view must give the same rows "
                            "on every read: no random(), TABLESAMPLE or sequence), or run it in a REPEATABLE READ "
                            "transaction (one snapshot for the count and every read), and try again.")));
}

// Bytes per row of a copy with d features, to size the shuffle's buckets:
// the float8[] (24-byte header, 8 per value and one for an intercept), i
// and y, the tuple header and the allocation around it. A sparse row's
// size depends on its non-zeros (data): the bound for nnz = d + 1 (12
// bytes per entry, 16 of header) is used instead, never a count from the data.
int64 copy_row_bytes(int dim, bool sparse) {
  return sparse ? 12 * (static_cast<int64>(dim) + 1) + 88 : 8 * (static_cast<int64>(dim) + 1) + 96;
}

// The copy of a run without read access: a row that the training could not
// use as it is -- NULL or non-finite features, another length than d, NULL
// elements, a value beyond float8, a label that is NULL, NaN or not a
// declared class -- becomes the fixed public row (d zeros, the first class).
// Mapping each row by a fixed function keeps neighbouring tables
// neighbouring, so the run stays (epsilon, delta)-DP; and nothing about the
// replaced rows is reported.
void copy_replacing_unusable_rows(const char* shuffled, const char* from, const char* x, const char* y,
                                  Oid feature_elem, ArrayType* classes, int dim, const RunIdentities& ids,
                                  CopyOrder order, const PreparedData* out) {
  // numeric values beyond float8, or too close to 0 for it (below the
  // smallest normal double: the cast fails from about 2.5e-324), would fail
  // the cast: such an array becomes NULL (unusable). A sparse row is taken
  // as it is (the type holds finite float8 values only).
  const bool sparse = out->sparse;
  const char* features = sparse ? x
                         : feature_elem == NUMERICOID
                             ? psprintf("CASE WHEN EXISTS (SELECT FROM unnest(%s) v WHERE abs(v) > "
                                        "1.7976931348623157e308 OR (v <> 0 AND abs(v) < 2.2250738585072014e-308)) "
                                        "THEN NULL ELSE %s::float8[] END", x, x)
                             : psprintf("%s::float8[]", x);
  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql,
                   "SELECT i, %s, CASE WHEN u THEN ys ELSE 0 END "
                   "FROM (SELECT i, xs, ys, coalesce(dptrain.usable_row(xs, ys, $3), false) AS u FROM (%s) r) s",
                   with_intercept("CASE WHEN u THEN xs ELSE $2 END", out),
                   shuffled_rows_sql(from,
                                     psprintf("%s AS xs, (array_position($1, %s) - 1)::float8 AS ys", features,
                                              label_class_sql(y, out->label_type)),
                                     order));
  double* zeros = static_cast<double*>(palloc0(sizeof(double) * dim));
  // The fixed public row: d zeros (for sparse rows: no entries, dimension d).
  Oid types[3] = {TEXTARRAYOID, sparse ? sparsevec_type_oid() : FLOAT8ARRAYOID, INT4OID};
  Datum values[3] = {PointerGetDatum(classes),
                     sparse ? PointerGetDatum(make_sparsevec(dim, 0, nullptr, nullptr))
                            : PointerGetDatum(make_float8_array(zeros, dim)),
                     Int32GetDatum(dim)};
  fill_copy(shuffled, sql.data, 3, types, values, order, ids, out->relid, out->rows, copy_row_bytes(dim, sparse));
}

}  // namespace

Oid check_evaluation_columns(Oid relid, const char* label, const char* features, Oid* label_type) {
  (void) check_label_type(relid, get_attnum(relid, label), label);
  *label_type = getBaseType(get_atttype(relid, get_attnum(relid, label)));
  return features != nullptr ? check_feature_type(relid, get_attnum(relid, features), features) : FLOAT8OID;
}

char* with_intercept(const char* features, const PreparedData* out) {
  if (!(out->intercept > 0)) return pstrdup(features);
  return psprintf("dptrain.intercept_row(%s, %.17g::pg_catalog.float8, %.17g::pg_catalog.float8)", features,
                  out->intercept_bound, out->intercept);
}

AttrNumber require_column(Oid relid, const char* relname, const char* column, const char* role) {
  if (column == nullptr || column[0] == '\0')
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s column name must not be empty", role),
                    errhint("Pass the name of the %s column.", role)));
  const AttrNumber attnum = get_attnum(relid, column);
  if (attnum == InvalidAttrNumber || attnum < 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("column \"%s\" of relation \"%s\" does not exist", column, relname),
                    errhint("Pass the name of the %s column as it is spelled in the table, without quotes "
                            "(e.g. %s => '%s').",
                            role, strcmp(role, "label") == 0 ? "label" : "features",
                            strcmp(role, "label") == 0 ? "y" : "x")));
  return attnum;
}

void require_intercept_arguments(double bound, double b) {
  if (!(bound > 0) || !std::isfinite(bound) || !(b > 0) || !std::isfinite(b))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("feature_bound and intercept must be positive finite numbers"),
                    errdetail("feature_bound = %g, intercept = %g.", bound, b),
                    errhint("dp_train chooses them itself (docs/intercept.md).")));
}

void inspect_training_data(Oid relid, const char* label, const char* features, ArrayType* declared,
                           const RunIdentities& ids, PreparedData* out) {
  char* relname = require_training_relation(relid);
  const char* nspname = get_namespace_name(get_rel_namespace(relid));
  const char* qualified = quote_qualified_identifier(nspname, relname);
  // What the statements read: the name, or a Citus table's guarded read of
  // its shards (shard_guard.h).
  const char* from = guarded_source_sql(relid);

  // Encoded columns (encoded_features.h): the expression replaces the
  // features column; it gives float8[] of the encoding's dimension or NULL.
  const bool encoded = out->encoded_x != nullptr;
  if (encoded) features = "features";
  const AttrNumber y_att = require_column(relid, relname, label, "label");
  const Oid feature_elem =
      encoded ? FLOAT8OID : check_feature_type(relid, require_column(relid, relname, features, "features"), features);
  const LabelKind label_kind = check_label_type(relid, y_att, label);
  const Oid label_type = getBaseType(get_atttype(relid, y_att));
  if (declared != nullptr) {
    check_declared_class_count(declared);
    // '1.0' of a numeric label is the class '1' (label_classes.h).
    declared = canonical_declared_classes(declared, label_type);
    // Their shape, NULLs and duplicates are the argument's own: refused here,
    // before any row is read (they were refused after the scan below, which
    // on a large table took as long as the scan).
    int ndeclared;
    (void) declared_class_names(declared, &ndeclared);
  }
  if (declared == nullptr && label_kind != LabelKind::Boolean && !ids.caller_reads)
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("the classes must be declared to train on \"%s\" without read access", relname),
                    errdetail("Reading the list of classes from the data would reveal it."),
                    errhint("Pass classes => ARRAY[...] (binary: negative class first).")));
  const char* x = encoded ? out->encoded_x : quote_identifier(features);
  const char* y = quote_identifier(label);

  // Public facts first: n and d. A reader is told about every row it must
  // repair; for a role that may not read the data nothing may depend on the
  // rows but through the release, so its run takes d as the length of the
  // longest one-dimensional feature array (the shape, public like n) and
  // replaces every row it cannot use by the fixed public row (0, first
  // class) when the rows are copied below -- no error, no count.
  StringInfoData sql;
  initStringInfo(&sql);
  int64 n, dmin;
  // A reader's labels are checked in the same scan: against the declared
  // classes (a declared array that array_position cannot search, more than
  // one-dimensional, is refused by declared_class_names below, before the
  // count would be looked at), or read from the data.
  const ClassScan class_scan = !ids.caller_reads                  ? ClassScan::None
                               : declared != nullptr              ? (ARR_NDIM(declared) <= 1 ? ClassScan::Declared
                                                                                             : ClassScan::None)
                               : label_kind == LabelKind::Boolean ? ClassScan::None
                                                                  : ClassScan::FromData;
  ScannedClasses scanned;
  if (ids.caller_reads && encoded) {
    // Each row encoded once (OFFSET 0 keeps the planner from copying the
    // expression into every aggregate), then checked like a features column.
    count_and_check_rows(relid, relname, psprintf("(SELECT %s AS x, %s AS y FROM %s OFFSET 0) r", x, y, from), "x", "y",
                         "features", label, feature_elem, label_type, true, ids.reader, class_scan, declared, &n, &dmin,
                         &scanned);
  } else if (ids.caller_reads) {
    count_and_check_rows(relid, relname, from, x, y, features, label, feature_elem, label_type, false, ids.reader,
                         class_scan, declared, &n, &dmin, &scanned);
  } else if (encoded) {
    // d is the encoding's (public); only n is counted.
    appendStringInfo(&sql, "SELECT count(*)::int8 FROM %s", from);
    spi_exec_hiding_errors(ids, relid, sql.data, 0, nullptr, nullptr, SPI_OK_SELECT);
    n = datum_int64(0, 1);
    DPT_CORE({ dmin = dptrain::preprocessing::FeatureEncoding::from_json(nlohmann::json::parse(out->encoding)).dim(); });
    if (n == 0)
      ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("table \"%s\" has no rows to train on", relname),
                      errhint("Train on a table with at least one row.")));
  } else {
    if (feature_elem == sparsevec_type_oid())
      appendStringInfo(&sql, "SELECT count(*)::int8, coalesce(max(dptrain.sparsevec_dims(%s)), 0)::int8 FROM %s", x,
                       from);
    else
      appendStringInfo(&sql,
                       "SELECT count(*)::int8, "
                       "coalesce(max(cardinality(%s)) FILTER (WHERE array_ndims(%s) = 1), 0)::int8 FROM %s",
                       x, x, from);
    spi_exec_hiding_errors(ids, relid, sql.data, 0, nullptr, nullptr, SPI_OK_SELECT);
    n = datum_int64(0, 1);
    dmin = datum_int64(0, 2);
    if (n == 0)
      ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("table \"%s\" has no rows to train on", relname),
                      errhint("Train on a table with at least one row.")));
    if (dmin == 0)
      ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature arrays are empty"),
                      errhint("Rows need at least one feature.")));
  }

  // Classes: declared by the caller, implied by a boolean label, or read
  // from the data (then outside the privacy guarantee: the metadata says so).
  ArrayType* classes;
  char** class_names;
  int nclasses;
  bool from_data = false;
  if (declared != nullptr) {
    class_names = declared_class_names(declared, &nclasses);
    // Rebuilt with subscripts from 1: the copy numbers a row's class
    // array_position(classes, label) - 1, which counts from the array's lower
    // bound ('[0:1]={false,true}' made false -1 and true 0).
    Datum* items;
    int k;
    deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &k);
    classes = construct_array(items, k, TEXTOID, -1, false, TYPALIGN_INT);
  } else if (label_kind == LabelKind::Boolean) {
    Datum items[2] = {CStringGetTextDatum("false"), CStringGetTextDatum("true")};
    classes = construct_array(items, 2, TEXTOID, -1, false, TYPALIGN_INT);
    class_names = declared_class_names(classes, &nclasses);
  } else {
    // Read in the scan above (only a reader gets here: without read access
    // such a label needs declared classes).
    Datum* items = nullptr;
    int k = 0;
    if (scanned.found != nullptr)
      deconstruct_array(scanned.found, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &k);
    if (k > kMaxClasses)
      ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                      errmsg("label column \"%s\" has more than %d distinct values", label, kMaxClasses),
                      errhint("Is \"%s\" really the label? Classification supports up to %d classes.", label,
                              kMaxClasses)));
    classes = construct_array(items, k, TEXTOID, -1, false, TYPALIGN_INT);
    class_names = declared_class_names(classes, &nclasses);
    from_data = true;
  }
  if (nclasses < 2)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("training needs at least two classes"),
                    // only when read from the data: a declared class says nothing about the rows
                    nclasses == 1 && from_data ? errdetail("Every row has the label \"%s\".", class_names[0]) : 0,
                    declared != nullptr ? errhint("Declare at least two classes (binary: negative class first).")
                                        : errhint("Check the label column, or declare the classes explicitly.")));
  // The model size is known now: refuse before copying any data.
  const int64 models = nclasses == 2 ? 1 : nclasses;
  if (dmin > INT_MAX || models * dmin > dptrain::epoch_state::kMaxParameters)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("model too large"),
                    errdetail("%lld models x %lld features exceed the limit of %lld parameters.", (long long) models,
                              (long long) dmin, (long long) dptrain::epoch_state::kMaxParameters),
                    errhint("Reduce the dimension, e.g. with a random projection, or the number of classes.")));

  // Counted in the scan above.
  if (class_scan == ClassScan::Declared && scanned.outside > 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                    errmsg("label column \"%s\" has values outside the declared classes", label),
                    errhint("Declare every class, or filter the rows.")));

  out->source_name = pstrdup(qualified);
  out->source_from = from;
  out->relid = relid;
  out->rows = n;
  out->dim = static_cast<int>(dmin);
  out->nclasses = nclasses;
  out->classes = class_names;
  out->classes_array = classes;
  out->classes_from_data = from_data;
  out->feature_elem = feature_elem;
  out->sparse = feature_elem == sparsevec_type_oid();
  out->x = x;
  out->y = y;
  out->label_type = label_type;
}

void copy_training_data(const RunIdentities& ids, bool has_seed, int64 seed, PreparedData* out) {
  const char* from = out->source_from;
  const char* x = out->x;
  const char* y = out->y;
  StringInfoData sql;
  initStringInfo(&sql);
  if (has_seed) {
    // Tests only: makes ORDER BY random() reproducible in this session.
    Oid t[1] = {FLOAT8OID};
    Datum v[1] = {Float8GetDatum(static_cast<double>(seed % 2147483647) / 2147483647.0)};
    spi_exec("SELECT setseed($1)", 1, t, v, SPI_OK_SELECT);
  }

  // One random permutation, materialized: a temp table is never scanned by
  // parallel workers, so every epoch over it is one sequential pass in
  // this order (the permutation the bolt-on analysis fixes). It belongs to
  // the runner; the reader may only insert into it. Column i numbers the
  // rows 1..n (in the source's scan order, unrelated to their contents):
  // BST14 fetches its sampled batches by row number (dptrain.sampled_rows).
  const char* shuffled = psprintf("pg_temp.dptrain_shuffled_%d", ++shuffle_counter);
  {
    IdentitySwitch sw;
    switch_identity(&sw, ids.runner, false);
    resetStringInfo(&sql);
    appendStringInfo(&sql, "CREATE TEMP TABLE %s (i int8 NOT NULL, x %s, y float8) ON COMMIT DROP", shuffled,
                     out->sparse ? "dptrain.sparsevec" : "float8[]");
    spi_exec(sql.data, 0, nullptr, nullptr, SPI_OK_UTILITY);
    if (ids.reader != ids.runner) {
      resetStringInfo(&sql);
      appendStringInfo(&sql, "GRANT INSERT ON %s TO %s", shuffled, quoted_role(ids.reader));
      spi_exec(sql.data, 0, nullptr, nullptr, SPI_OK_UTILITY);
    }
    restore_identity(&sw);
  }
  // A run that does not depend on the order of the rows gets none
  // (docs/performance.md, "Order-free copies").
  const CopyOrder order = out->unordered_copy ? CopyOrder::Source : has_seed ? CopyOrder::Query : CopyOrder::Bucket;
  if (order == CopyOrder::Query) {
    MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
    seeded_copies = bms_add_member(seeded_copies, shuffle_counter);
    MemoryContextSwitchTo(old);
  }
  resetStringInfo(&sql);
  const bool report = out->rows >= kProgressRows;
  const TimestampTz started = GetCurrentTimestamp();
  if (report && order == CopyOrder::Source)
    ereport(NOTICE, (errmsg("dptrain: copying %lld rows in the table's order", (long long) out->rows),
                     errdetail("The run does not depend on the order of the rows: no shuffle.")));
  else if (report)
    ereport(NOTICE, (errmsg("dptrain: shuffling %lld rows into a random order", (long long) out->rows)));
  if (ids.caller_reads) {
    appendStringInfo(&sql,
                     "SELECT i, %s, (array_position($1, %s) - 1)::float8 FROM (%s) r",
                     with_intercept(out->sparse ? "x" : "x::float8[]", out), label_class_sql("y", out->label_type),
                     shuffled_rows_sql(from, psprintf("%s AS x, %s AS y", x, y), order));
    Oid types[1] = {TEXTARRAYOID};
    Datum values[1] = {PointerGetDatum(out->classes_array)};
    fill_copy(shuffled, sql.data, 1, types, values, order, ids, out->relid, out->rows,
              copy_row_bytes(out->dim, out->sparse));
  } else {
    copy_replacing_unusable_rows(shuffled, from, x, y, out->feature_elem, out->classes_array, out->dim, ids,
                                 order, out);
  }
  if (report)
    ereport(NOTICE, (errmsg(order == CopyOrder::Source ? "dptrain: copied %lld rows" : "dptrain: shuffled %lld rows",
                            (long long) out->rows),
                     errdetail("In %.1f s.", seconds_since(started))));

  out->shuffled = pstrdup(shuffled);
}

void prepare_training_data(Oid relid, const char* label, const char* features, ArrayType* declared,
                           bool has_seed, int64 seed, const RunIdentities& ids, PreparedData* out) {
  inspect_training_data(relid, label, features, declared, ids, out);
  copy_training_data(ids, has_seed, seed, out);
}

// A prepared table (pg_temp.dptrain_shuffled_N) or one of its parts
// (pg_temp.dptrain_shuffled_N_pP, the engine's part_table_name).
static void require_shuffled_name(const char* shuffled) {
  int n = 0, p = 0;
  const int fields = sscanf(shuffled, "pg_temp.dptrain_shuffled_%d_p%d", &n, &p);
  const char* canonical = fields == 2 ? psprintf("pg_temp.dptrain_shuffled_%d_p%d", n, p)
                                      : psprintf("pg_temp.dptrain_shuffled_%d", n);
  if (fields < 1 || n < 1 || (fields == 2 && p < 1) || strcmp(shuffled, canonical) != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("\"%s\" is not a dptrain training table", shuffled)));
}

// A new uniformly random order of the rows, drawn as the copy's: the
// bucket shuffle from the OS CSPRNG, or ORDER BY random() for the copies
// (and their parts) of a seeded run, whose pinned models depend on it.
void reshuffle_training_data(const char* shuffled) {
  require_shuffled_name(shuffled);
  const char* bare = shuffled + strlen("pg_temp.");
  int copy = 0;
  sscanf(shuffled, "pg_temp.dptrain_shuffled_%d", &copy);
  const bool seeded = bms_is_member(copy, seeded_copies);
  StringInfoData sql;
  initStringInfo(&sql);
  // (LIKE ...): the copy's own column types (x float8[] or dptrain.sparsevec).
  appendStringInfo(&sql, "CREATE TEMP TABLE %s_next (LIKE %s) ON COMMIT DROP", shuffled, shuffled);
  spi_exec(sql.data, 0, nullptr, nullptr, SPI_OK_UTILITY);
  resetStringInfo(&sql);
  if (seeded) {
    appendStringInfo(&sql, "INSERT INTO %s_next SELECT i, x, y FROM %s ORDER BY random()", shuffled, shuffled);
    spi_exec(sql.data, 0, nullptr, nullptr, SPI_OK_INSERT);
  } else {
    // sized by the table's pages (its rows are not counted)
    Relation rel = table_open(temp_table_oid(bare), AccessShareLock);
    const int64 pages = RelationGetNumberOfBlocks(rel);
    table_close(rel, AccessShareLock);
    appendStringInfo(&sql, "SELECT i, x, y FROM %s", shuffled);
    // Reads the session's own temp table (pg_temp: no other session can
    // put anything there), as the runner: no name to check.
    bucket_shuffle_insert(temp_table_oid(psprintf("%s_next", bare)), sql.data, 0, nullptr, nullptr, pages, BLCKSZ,
                          nullptr);
  }
  resetStringInfo(&sql);
  appendStringInfo(&sql, "DROP TABLE %s; ALTER TABLE %s_next RENAME TO %s", shuffled, shuffled, bare);
  if (SPI_execute(sql.data, false, 0) < 0) elog(ERROR, "dptrain: reshuffle failed");
}

void drop_training_data(const char* shuffled) {
  require_shuffled_name(shuffled);
  if (SPI_execute(psprintf("DROP TABLE IF EXISTS %s", shuffled), false, 0) < 0)
    elog(ERROR, "dptrain: could not drop %s", shuffled);
}

char** split_training_data(const char* shuffled, int parts, int64* rows) {
  require_shuffled_name(shuffled);
  if (parts < 1) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("parts must be at least 1")));
  char** names = static_cast<char**>(palloc(sizeof(char*) * parts));
  StringInfoData sql;
  initStringInfo(&sql);
  for (int p = 0; p < parts; ++p) {
    names[p] = psprintf("%s_p%d", shuffled, p + 1);  // the engine's part_table_name
    resetStringInfo(&sql);
    // A temp table is read by one sequential scan in insertion order (never
    // by parallel workers, never synchronized), so the inner row_number() is
    // the position in the random order; the outer one numbers the part's rows
    // 1..m_p in their order (column i, for BST14's dptrain.sampled_rows).
    appendStringInfo(&sql,
                     "CREATE TEMP TABLE %s (LIKE %s) ON COMMIT DROP; "
                     "INSERT INTO %s SELECT row_number() OVER (), x, y "
                     "FROM (SELECT x, y, row_number() OVER () - 1 AS r FROM %s) s WHERE r %% %d = %d",
                     names[p], shuffled, names[p], shuffled, parts, p);
    if (SPI_execute(sql.data, false, 0) != SPI_OK_INSERT) elog(ERROR, "dptrain: could not split %s", shuffled);
    rows[p] = static_cast<int64>(SPI_processed);
  }
  return names;
}

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_training_prepare);
PG_FUNCTION_INFO_V1(dptrain_training_reshuffle);
PG_FUNCTION_INFO_V1(dptrain_training_drop);
PG_FUNCTION_INFO_V1(dptrain_training_split);
PG_FUNCTION_INFO_V1(dptrain_usable_row);
PG_FUNCTION_INFO_V1(dptrain_intercept_row);

// dptrain.intercept_row(x float8[], bound float8, b float8) -> float8[]
// (STRICT): x scaled to norm <= bound, then b (training/intercept.h). A row
// the run cannot use (not one-dimensional, NULL elements) is returned as it
// is, to be refused (or, without read access, replaced) as without intercept.
Datum dptrain_intercept_row(PG_FUNCTION_ARGS) {
  ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
  const double bound = PG_GETARG_FLOAT8(1), b = PG_GETARG_FLOAT8(2);
  dptrain::pg::require_intercept_arguments(bound, b);
  if (ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != FLOAT8OID || (ARR_HASNULL(a) && array_contains_nulls(a)))
    PG_RETURN_ARRAYTYPE_P(a);
  const int d = ARR_DIMS(a)[0];
  double* out = static_cast<double*>(palloc(sizeof(double) * (d + 1)));
  DPT_CORE({ dptrain::intercept::augment_row(reinterpret_cast<const double*>(ARR_DATA_PTR(a)), d, bound, b, out); });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(out, d + 1));
}

// dptrain.usable_row(x float8[], y float8, dim int) -> boolean (STRICT: a
// NULL label or features is unusable): whether the epoch aggregate takes the
// row as it is (one-dimensional, dim values, no NULL, finite squared norm).
Datum dptrain_usable_row(PG_FUNCTION_ARGS) {
  ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
  const int dim = PG_GETARG_INT32(2);
  if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != dim || ARR_ELEMTYPE(a) != FLOAT8OID ||
      (ARR_HASNULL(a) && array_contains_nulls(a)))
    PG_RETURN_BOOL(false);
  const double* x = reinterpret_cast<const double*>(ARR_DATA_PTR(a));
  bool usable = false;
  DPT_CORE({ usable = dptrain::epoch_state::usable_features(x, dim); });
  PG_RETURN_BOOL(usable);
}

// dptrain.training_prepare(source regclass, label text, features text,
//                          classes text[], seed bigint)
//   -> (shuffled text, rows bigint, dim int, classes text[], classes_from_data bool, source text)
Datum dptrain_training_prepare(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("source, label and features must not be NULL")));
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "dptrain.training_prepare must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  dptrain::pg::PreparedData prepared;
  MemoryContext caller = CurrentMemoryContext;
  // The controller's path: everything with the caller's own rights (it needs
  // SELECT on the data and EXECUTE on the epoch aggregate anyway).
  dptrain::pg::RunIdentities ids;
  ids.caller = ids.reader = ids.runner = GetUserId();
  ids.caller_reads = true;
  // Arguments 6 and 7 (feature_bound, intercept): the rows of a run with an
  // intercept, (x clipped to feature_bound, intercept) (training/intercept.h).
  if (!PG_ARGISNULL(6)) {
    const double bound = PG_ARGISNULL(5) ? 0.0 : PG_GETARG_FLOAT8(5), b = PG_GETARG_FLOAT8(6);
    dptrain::pg::require_intercept_arguments(bound, b);
    prepared.intercept_bound = bound;
    prepared.intercept = b;
  }
  SPI_connect();
  dptrain::pg::prepare_training_data(PG_GETARG_OID(0), text_to_cstring(PG_GETARG_TEXT_PP(1)),
                                     text_to_cstring(PG_GETARG_TEXT_PP(2)),
                                     PG_ARGISNULL(3) ? nullptr : PG_GETARG_ARRAYTYPE_P(3), !PG_ARGISNULL(4),
                                     PG_ARGISNULL(4) ? 0 : PG_GETARG_INT64(4), ids, &prepared);
  MemoryContext old = MemoryContextSwitchTo(caller);
  Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * prepared.nclasses));
  for (int i = 0; i < prepared.nclasses; ++i) items[i] = CStringGetTextDatum(prepared.classes[i]);
  Datum values[6] = {CStringGetTextDatum(prepared.shuffled), Int64GetDatum(prepared.rows),
                     Int32GetDatum(prepared.dim),
                     PointerGetDatum(construct_array(items, prepared.nclasses, TEXTOID, -1, false, TYPALIGN_INT)),
                     BoolGetDatum(prepared.classes_from_data), CStringGetTextDatum(prepared.source_name)};
  bool nulls[6] = {false, false, false, false, false, false};
  HeapTuple tuple = heap_form_tuple(tupdesc, values, nulls);
  MemoryContextSwitchTo(old);
  SPI_finish();
  dptrain::pg::remember_prepared_source(PG_GETARG_OID(0));  // checked again by store_model
  PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}

Datum dptrain_training_reshuffle(PG_FUNCTION_ARGS) {
  char* name = text_to_cstring(PG_GETARG_TEXT_PP(0));
  SPI_connect();
  dptrain::pg::reshuffle_training_data(name);
  SPI_finish();
  PG_RETURN_VOID();
}

Datum dptrain_training_drop(PG_FUNCTION_ARGS) {
  char* name = text_to_cstring(PG_GETARG_TEXT_PP(0));
  SPI_connect();
  dptrain::pg::drop_training_data(name);
  SPI_finish();
  PG_RETURN_VOID();
}

// dptrain.training_split(shuffled text, parts int) -> SETOF (part int, shuffled text, rows bigint)
Datum dptrain_training_split(PG_FUNCTION_ARGS) {
  char* name = text_to_cstring(PG_GETARG_TEXT_PP(0));
  const int parts = PG_GETARG_INT32(1);
  if (parts < 1 || parts > 1000)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("parts must be between 1 and 1000")));
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  InitMaterializedSRF(fcinfo, 0);
  int64* rows = static_cast<int64*>(palloc(sizeof(int64) * parts));
  SPI_connect();
  char** names = dptrain::pg::split_training_data(name, parts, rows);
  MemoryContext old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
  for (int p = 0; p < parts; ++p) {
    Datum values[3] = {Int32GetDatum(p), CStringGetTextDatum(names[p]), Int64GetDatum(rows[p])};
    bool nulls[3] = {false, false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  MemoryContextSwitchTo(old);
  SPI_finish();
  return (Datum) 0;
}

}  // extern "C"
