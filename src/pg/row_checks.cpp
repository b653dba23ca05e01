#include "row_checks.h"

#include "label_classes.h"
#include "sparsevec.h"
#include "training_classes.h"
#include "training_spi.h"

namespace dptrain::pg {
namespace {

// float8[] rows: their norm's overflow is told by not_finite's count
// (row_check_aggregates), not by a second read of every row.
bool float8_norm_check(Oid feature_elem, bool encoded) { return feature_elem == FLOAT8OID && !encoded; }

// The per-row checks as aggregates named n, dmin, dmax, null_x, null_y,
// multi_dim, nan_y, out_of_range, not_finite, null_elem, norm_overflow.
const char* row_check_aggregates(const char* x, const char* y, Oid feature_elem, Oid label_type, bool encoded) {
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
  // before; only when that count is not 0 does a second scan
  // (split_float8_unusable) tell a NaN from the norm.
  if (float8_norm_check(feature_elem, encoded))
    float_not_finite = psprintf(
        "count(*) FILTER (WHERE CASE WHEN array_ndims(%s) = 1 THEN NOT dptrain.usable_row(%s, 0, cardinality(%s)) "
        "ELSE %s OPERATOR(pg_catalog.&&) '{NaN,Infinity,-Infinity}'::pg_catalog.float8[] END)::int8",
        x, x, x, x);
  const char* norm_overflow =
      encoded || float8_norm_check(feature_elem, encoded) ? "0::int8"
      : sparse
          ? psprintf("count(*) FILTER (WHERE NOT dptrain.usable_row(%s, 0, dptrain.sparsevec_dims(%s)))::int8", x, x)
      : feature_elem == NUMERICOID
          ? psprintf("count(*) FILTER (WHERE array_ndims(%s) = 1 AND NOT %s AND "
                     "NOT dptrain.usable_row(%s::pg_catalog.float8[], 0, cardinality(%s)))::int8",
                     x, numeric_beyond_float8_sql(x), x, x)
          : "0::int8";
  return psprintf(
      "count(*)::int8 AS n, min(%s)::int8 AS dmin, max(%s)::int8 AS dmax, "
      "count(*) FILTER (WHERE %s IS NULL)::int8 AS null_x, count(*) FILTER (WHERE %s IS NULL)::int8 AS null_y, "
      "%s AS multi_dim, %s AS nan_y, %s AS out_of_range, %s AS not_finite, %s AS null_elem, %s AS norm_overflow",
      length, length, x, y, sparse ? "0::int8" : psprintf("count(*) FILTER (WHERE array_ndims(%s) > 1)::int8", x),
      float_type ? psprintf("count(*) FILTER (WHERE %s::%s = 'NaN'::%s)::int8", y, float_type, float_type) : "0::int8",
      // numeric values beyond float8's range would fail the copy's cast
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
}

// The statement of count_and_check_rows. `checks` are row_check_aggregates.
// Declared adds one more aggregate (`outside`); FromData groups the same
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

// The counts of row_check_aggregates, in the scan's one result row.
struct RowCounts {
  int64 n, dmin, dmax, null_x, null_y, multi_dim, nan_y, out_of_range, not_finite, null_elem, norm_overflow;
};

RowCounts read_row_counts() {
  return {datum_int64(0, 1), datum_int64(0, 2), datum_int64(0, 3), datum_int64(0, 4), datum_int64(0, 5),
          datum_int64(0, 6), datum_int64(0, 7), datum_int64(0, 8), datum_int64(0, 9), datum_int64(0, 10),
          datum_int64(0, 11)};
}

// The labels' columns of the scan's result row: the count outside the
// declared classes, and the classes found in the data.
ScannedClasses read_scanned_classes() {
  ScannedClasses classes;
  classes.outside = datum_int64(0, 12);
  bool isnull;
  const Datum found = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 13, &isnull);
  classes.found = isnull ? nullptr : DatumGetArrayTypePCopy(found);
  return classes;
}

// The first problem the counts show, as an ERROR with a hint.
void refuse_unusable_rows(const RowCounts& c, const RowScan& scan) {
  const char* features = scan.features;
  const char* label = scan.label;
  if (c.n == 0) refuse_no_rows(scan.relname);
  if (c.null_x > 0 && scan.encoded)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("%lld rows have a NULL or NaN number or boolean among the features", (long long) c.null_x),
                    errdetail("Such a row has no features (docs/encoding.md)."),
                    errhint("Remove or repair those rows (or filter them in a view) before training.")));
  if (c.null_x > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("feature column \"%s\" contains NULL values", features),
                    errhint("Remove or repair rows with NULL features before training.")));
  if (c.null_y > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("label column \"%s\" contains NULL values", label),
                    errhint("Remove rows with NULL labels before training.")));
  if (c.nan_y > 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("label column \"%s\" contains NaN", label),
                    errhint("NaN is not a class: remove or repair those rows.")));
  if (c.not_finite > 0)
    ereport(ERROR, (errcode(ERRCODE_FLOATING_POINT_EXCEPTION),
                    errmsg("feature column \"%s\" contains NaN or infinite values", features),
                    errhint("Remove or repair rows with NaN or infinite features before training.")));
  if (c.out_of_range > 0) refuse_numeric_beyond_float8(features);
  if (c.multi_dim > 0)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("feature column \"%s\" contains multi-dimensional arrays", features),
                    errhint("Every row's features must be a one-dimensional array.")));
  if (c.null_elem > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("feature column \"%s\" contains arrays with NULL elements", features),
                    errhint("Remove or repair rows with NULL features before training.")));
  if (c.dmin != c.dmax)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature arrays have different lengths"),
                    errdetail("Lengths range from %lld to %lld.", (long long) c.dmin, (long long) c.dmax),
                    errhint("Every row must have the same number of features.")));
  if (c.dmin == 0) refuse_empty_features();
  // The passes' words and SQLSTATE (refuse_feature_row), now before the charge.
  if (c.norm_overflow > 0)
    ereport(ERROR, (errcode(ERRCODE_FLOATING_POINT_EXCEPTION), errmsg("feature values are too large"),
                    errdetail("The squared norm of a feature vector overflows a double."),
                    errhint("Scale the features (dptrain load normalizes rows to norm 1).")));
}

// float8[] rows: not_finite counted every unusable one-dimensional row
// (row_check_aggregates). Some are: those holding a NaN or infinity are
// refused as such; the others, if no NULL element explains them, for their
// norm.
void split_float8_unusable(const RowScan& scan, RowCounts* c) {
  if (!float8_norm_check(scan.feature_elem, scan.encoded) || c->not_finite == 0) return;
  spi_exec_as_reader(scan.reader, source_read(scan.relid),
                     psprintf("SELECT count(*) FILTER (WHERE %s OPERATOR(pg_catalog.&&) "
                              "'{NaN,Infinity,-Infinity}'::pg_catalog.float8[])::int8 FROM %s",
                              scan.x, scan.from),
                     0, nullptr, nullptr, SPI_OK_SELECT);
  c->norm_overflow = c->not_finite;
  c->not_finite = datum_int64(0, 1);
}

}  // namespace

void refuse_no_rows(const char* relname) {
  ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("table \"%s\" has no rows to train on", relname),
                  errhint("Train on a table with at least one row.")));
}

void refuse_empty_features() {
  ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature arrays are empty"),
                  errhint("Rows need at least one feature.")));
}

// A numeric[] array holding a value that no double represents (the cast to
// float8[] fails on it): dptrain.beyond_float8 (sql/20_training.sql), the one
// definition of the bounds, which the reads of a role without read access use too.
const char* numeric_beyond_float8_sql(const char* x) {
  return psprintf("EXISTS (SELECT FROM pg_catalog.unnest(%s) v WHERE dptrain.beyond_float8(v))", x);
}

void refuse_numeric_beyond_float8(const char* features) {
  ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                  errmsg("feature column \"%s\" has values beyond the range of float8", features),
                  errdetail("A float8 holds magnitudes up to 1.8e308, and none between 0 and 2.5e-324."),
                  errhint("Scale the features (dptrain load normalizes rows to norm 1); round values too close "
                          "to 0 for float8 to 0.")));
}

void count_and_check_rows(const RowScan& scan, int64* rows, int64* dim, ScannedClasses* classes) {
  const char* checks = row_check_aggregates(scan.x, scan.y, scan.feature_elem, scan.label_type, scan.encoded);
  const bool declared = scan.mode == ClassScan::Declared;
  const OutsideCount outside = declared ? outside_declared(scan.y, scan.label_type, scan.declared)
                                        : OutsideCount{nullptr, InvalidOid, (Datum) 0};
  Oid types[1] = {outside.type};
  Datum values[1] = {outside.value};
  spi_exec_as_reader(scan.reader, source_read(scan.relid),
                     row_checks_sql(checks, scan.y, scan.from, scan.mode, outside.sql, scan.label_type),
                     declared ? 1 : 0, types, values, SPI_OK_SELECT);
  RowCounts counts = read_row_counts();
  *classes = read_scanned_classes();
  split_float8_unusable(scan, &counts);
  refuse_unusable_rows(counts, scan);
  *rows = counts.n;
  *dim = counts.dmin;
}

}  // namespace dptrain::pg
