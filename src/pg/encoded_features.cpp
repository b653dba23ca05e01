#include "encoded_features.h"

#include <memory>
#include <string>
#include <vector>

#include "core/preprocessing/feature_encoding.h"
#include "training_columns.h"

namespace dptrain::pg {
namespace {

void spi_select(const char* sql, int nargs, Oid* types, Datum* values) {
  if (SPI_execute_with_args(sql, nargs, types, values, nullptr, true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: SPI failed on: %s", sql);
}

// The first value of the first row, or nullptr (no row or NULL); in SPI's memory.
char* first_value() { return SPI_processed == 0 ? nullptr : SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1); }

}  // namespace

void read_feature_columns(FunctionCallInfo fcinfo, int features, int bounds, int categories, int normalization,
                          FeatureColumns* out) {
  for (int i : {features, bounds, categories, normalization})
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("features, bounds, categories and normalization must not be NULL"),
                      errhint("Leave bounds, categories and normalization out to use their defaults.")));
  ArrayType* names = PG_GETARG_ARRAYTYPE_P(features);
  if (ARR_NDIM(names) > 1 || (ARR_HASNULL(names) && array_contains_nulls(names)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("features must be a one-dimensional array of column names without NULLs"),
                    errhint("For example features => ARRAY['age', 'sex'].")));
  Datum* items;
  deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &out->count);
  if (out->count == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("features must name at least one column"),
                    errhint("For example features => ARRAY['age', 'sex'].")));
  out->names = static_cast<char**>(palloc(sizeof(char*) * out->count));
  for (int i = 0; i < out->count; ++i) out->names[i] = TextDatumGetCString(items[i]);
  out->names_array = PointerGetDatum(names);
  out->bounds = PG_GETARG_DATUM(bounds);
  out->categories = PG_GETARG_DATUM(categories);
  out->normalization = PG_GETARG_DATUM(normalization);
}

bool check_feature_columns(Oid relid, const char* relname, const char* label, const FeatureColumns& cols, Oid role) {
  const AttrNumber y = require_column(relid, relname, label, "label");
  bool reads = pg_class_aclcheck(relid, role, ACL_SELECT) == ACLCHECK_OK ||
               pg_attribute_aclcheck(relid, y, role, ACL_SELECT) == ACLCHECK_OK;
  const bool table_wide = pg_class_aclcheck(relid, role, ACL_SELECT) == ACLCHECK_OK;
  for (int i = 0; i < cols.count; ++i) {
    const AttrNumber x = require_column(relid, relname, cols.names[i], "features");
    if (strcmp(cols.names[i], label) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("the label column \"%s\" is also listed in features", label),
                      errhint("Leave the label out of features.")));
    if (!table_wide && pg_attribute_aclcheck(relid, x, role, ACL_SELECT) != ACLCHECK_OK) reads = false;
  }
  return reads;
}

char* build_run_encoding(Oid relid, const FeatureColumns& cols, const RunIdentities& ids) {
  Oid types[5] = {REGCLASSOID, TEXTARRAYOID, JSONBOID, JSONBOID, TEXTOID};
  Datum values[5] = {ObjectIdGetDatum(relid), cols.names_array, cols.bounds, cols.categories, cols.normalization};
  // As the caller, never the owner: with read access dp_encoding may read
  // undeclared categories (saying so); without it, nothing below reads a row.
  IdentitySwitch sw;
  switch_identity(&sw, ids.caller, true);
  if (!ids.caller_reads) {
    // Declared categories only: column types are catalog facts, the values are data.
    spi_select("SELECT f FROM unnest($2) f WHERE jsonb_typeof($4) = 'object' "
               "AND dptrain.column_kind($1, f) = 'categorical' AND NOT $4 ? f LIMIT 1",
               5, types, values);
    if (const char* undeclared = first_value())
      ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                      errmsg("the categories of column \"%s\" must be declared to train on \"%s\" without read access",
                             undeclared, get_rel_name(relid)),
                      errdetail("Reading them from the data would reveal them."),
                      errhint("Pass categories => '{\"%s\": [...]}' with every value to encode.", undeclared)));
  }
  // dp_encoding's body in the internal schema, not the name in the
  // extension's schema: others may create overloads there (sql/48_encoding.sql).
  spi_select("SELECT dptrain.build_encoding($1, $2, $3, $4, $5)::pg_catalog.text", 5, types, values);
  char* encoding = first_value();
  restore_identity(&sw);
  if (encoding == nullptr) elog(ERROR, "dptrain: dp_encoding returned no encoding");
  return encoding;
}

char* encoded_features_sql(const char* encoding_json, Oid relid, bool replace_unusable) {
  // Each column as the text the encoder reads: a number column's float8
  // value as dptrain.float_text writes it (float_text.h; col::text follows
  // the session's extra_float_digits, which rounds a float with 0 or less),
  // the others (boolean, text, enum) as their text, which no setting changes.
  // (Names first, prefixed N for a number column: the SQL is built below,
  // outside the core's frames.)
  std::vector<std::string>* columns = nullptr;
  DPT_CORE({
    auto v = std::make_unique<std::vector<std::string>>();
    const auto e = dptrain::preprocessing::FeatureEncoding::from_json(nlohmann::json::parse(encoding_json));
    for (const auto& c : e.columns())
      v->push_back((c.kind == dptrain::preprocessing::ColumnKind::Numeric ? "N" : "T") + c.name);
    columns = v.release();
  });
  delete_on_reset(CurrentMemoryContext, columns);
  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql, "dptrain.encode_row(%s::jsonb, VARIADIC ARRAY[", quote_literal_cstr(encoding_json));
  for (std::size_t i = 0; i < columns->size(); ++i) {
    const char* name = (*columns)[i].c_str() + 1;
    const char* col = quote_identifier(name);
    const char* x = psprintf("%s::pg_catalog.float8", col);
    // A numeric value no double holds (dptrain.beyond_float8: above 1.8e308,
    // or not 0 and rounding to 0) fails that cast: in a run without read
    // access the read then failed as a whole ("reading ... failed", charged),
    // one bit about one hidden row that no DP release covers. There it
    // becomes NaN, which makes the row the fixed public row, as in the copy
    // of a feature array (training_copy.cpp, copy_replacing_unusable_rows).
    // A reader gets the cast's own error. Every value that casts (subnormal
    // ones too) is read as its double by both.
    const AttrNumber att = get_attnum(relid, name);
    if (replace_unusable && att != InvalidAttrNumber && getBaseType(get_atttype(relid, att)) == NUMERICOID)
      x = psprintf("CASE WHEN dptrain.beyond_float8(%s) THEN 'NaN'::pg_catalog.float8 ELSE %s END", col, x);
    appendStringInfo(&sql, "%s%s", i > 0 ? ", " : "",
                     (*columns)[i][0] == 'N' ? psprintf("dptrain.float_text(%s)", x)
                                             : psprintf("%s::pg_catalog.text", col));
  }
  appendStringInfoString(&sql, "]::pg_catalog.text[])");
  return sql.data;
}

char** encoding_column_names(const char* encoding_json, int* n) {
  std::vector<std::string>* names = nullptr;
  DPT_CORE({
    auto v = std::make_unique<std::vector<std::string>>();
    const auto e = dptrain::preprocessing::FeatureEncoding::from_json(nlohmann::json::parse(encoding_json));
    for (const auto& c : e.columns()) v->push_back(c.name);
    names = v.release();
  });
  delete_on_reset(CurrentMemoryContext, names);
  *n = static_cast<int>(names->size());
  char** out = static_cast<char**>(palloc(sizeof(char*) * (*n > 0 ? *n : 1)));
  for (int i = 0; i < *n; ++i) out[i] = pstrdup((*names)[i].c_str());
  return out;
}

void check_encoding_fits(Oid relid, const char* encoding_json) {
  Oid types[2] = {REGCLASSOID, TEXTOID};
  Datum values[2] = {ObjectIdGetDatum(relid), CStringGetTextDatum(encoding_json)};
  spi_select("SELECT c->>'name' FROM jsonb_array_elements($2::jsonb -> 'columns') c "
             "WHERE dptrain.column_kind($1, c->>'name') <> c->>'type' LIMIT 1",
             2, types, values);
  if (const char* mismatch = first_value())
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("column \"%s\" of \"%s\" does not have the type the model's encoding expects", mismatch,
                           get_rel_name(relid)),
                    errhint("Numeric encodings need numeric columns, boolean ones boolean columns, categorical ones "
                            "text columns.")));
}

}  // namespace dptrain::pg
