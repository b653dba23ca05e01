// dp_predict and dp_predict_proba (one row) and dp_evaluate (a table) for
// stored models, and the evaluation aggregate dp_evaluate runs: state =
// {rows, correct, loss_sum, confusion matrix} (core/evaluation/metrics.h),
// combine = sum, so it runs under parallel workers.
#include <algorithm>
#include <optional>
#include <vector>

#include "core/evaluation/metrics.h"
#include "core/packed_model.h"
#include "distributed_source.h"
#include "encoded_features.h"
#include "label_classes.h"
#include "row_checks.h"
#include "models.h"
#include "shard_guard.h"
#include "sparsevec.h"
#include "statement_checks.h"
#include "training_columns.h"

namespace pm = dptrain::packed_model;
using dptrain::pg::float8_array_data;

namespace {

// dp_predict's model, loaded on the first call of a query and kept for the
// others (keyed by the reference, in case it changes from row to row), and
// read again when the caller or the snapshot changed (models.h, ModelRead).
struct PredictCache {
  bool by_id;
  int64 id;
  char* reference;
  dptrain::pg::ModelRead read;
  dptrain::pg::StoredModel model;
};

const dptrain::pg::StoredModel& predict_model(FunctionCallInfo fcinfo, bool by_id) {
  const int64 id = by_id ? PG_GETARG_INT64(0) : 0;
  const char* reference = by_id ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(0));
  const dptrain::pg::ModelRead now = dptrain::pg::model_read_now();
  auto* cache = static_cast<PredictCache*>(fcinfo->flinfo->fn_extra);
  if (cache == nullptr || cache->by_id != by_id || (by_id ? cache->id != id : strcmp(cache->reference, reference) != 0) ||
      !dptrain::pg::same_model_read(cache->read, now)) {
    cache = static_cast<PredictCache*>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PredictCache)));
    // dp_predict has no SET clause (it runs once per row): the path is
    // pinned here, around its only SQL.
    const int pinned = dptrain::pg::pin_search_path();
    SPI_connect();
    if (by_id) dptrain::pg::load_model_by_id(id, fcinfo->flinfo->fn_mcxt, &cache->model);
    else dptrain::pg::load_model(reference, fcinfo->flinfo->fn_mcxt, &cache->model);
    SPI_finish();
    dptrain::pg::unpin_search_path(pinned);
    cache->by_id = by_id;
    cache->id = id;
    cache->reference = by_id ? nullptr : MemoryContextStrdup(fcinfo->flinfo->fn_mcxt, reference);
    cache->read = now;
    fcinfo->flinfo->fn_extra = cache;
  }
  return cache->model;
}

// The features argument (1): a float8[] as it is, or (the evaluation
// aggregate's sparse overload) a dptrain.sparsevec densified: scoring is
// O(d) per row either way, and the dense code keeps the scores identical.
const double* features_arg(FunctionCallInfo fcinfo, bool sparse, int* len) {
  if (sparse) {
    dptrain::pg::SparseVec* v = dptrain::pg::sparsevec_arg(fcinfo, 1);
    double* x = static_cast<double*>(palloc(sizeof(double) * v->dim));
    DPT_CORE({ dptrain::sparse::to_dense(dptrain::pg::sparsevec_view(v), x); });
    *len = v->dim;
    return x;
  }
  return float8_array_data(PG_GETARG_ARRAYTYPE_P(1), len, "features");
}

Datum predict(FunctionCallInfo fcinfo, bool by_id) {
  const dptrain::pg::StoredModel& model = predict_model(fcinfo, by_id);
  int len = 0;
  const double* x = features_arg(fcinfo, false, &len);
  const double* p = reinterpret_cast<const double*>(ARR_DATA_PTR(model.packed));
  int index = 0;
  DPT_CORE({ index = pm::predict_index(p, x, len); });
  PG_RETURN_TEXT_P(cstring_to_text(model.classes[index]));
}

Datum predict_proba(FunctionCallInfo fcinfo, bool by_id) {
  const dptrain::pg::StoredModel& model = predict_model(fcinfo, by_id);
  int len = 0;
  const double* x = features_arg(fcinfo, false, &len);
  const double* p = reinterpret_cast<const double*>(ARR_DATA_PTR(model.packed));
  std::vector<double> probabilities(static_cast<std::size_t>(model.nclasses));
  DPT_CORE({ pm::probabilities(p, x, len, probabilities.data()); });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(probabilities.data(), model.nclasses));
}

// The model argument of the evaluation aggregate, validated on every row: the
// check is O(1), and caching it by pointer is unsound (a row's detoasted copy
// may be allocated at the address of the previous row's).
const double* checked_packed(ArrayType* packed, int* len) {
  const double* p = float8_array_data(packed, len, "packed model");
  DPT_CORE({ pm::validate(p, static_cast<std::size_t>(*len)); });
  return p;
}

constexpr const char* kStateHint =
    "The evaluation aggregate's state is {rows, correct, loss_sum, confusion matrix, unknown labels} of one model.";

}  // namespace

namespace {
Datum evaluate_row(FunctionCallInfo fcinfo, bool sparse);
}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dp_predict);
PG_FUNCTION_INFO_V1(dptrain_dp_predict_id);
PG_FUNCTION_INFO_V1(dptrain_dp_predict_proba);
PG_FUNCTION_INFO_V1(dptrain_dp_predict_proba_id);
PG_FUNCTION_INFO_V1(dptrain_decision_score);
PG_FUNCTION_INFO_V1(dptrain_evaluate_transition);
PG_FUNCTION_INFO_V1(dptrain_evaluate_combine);
PG_FUNCTION_INFO_V1(dptrain_evaluate_sparse_transition);
PG_FUNCTION_INFO_V1(dptrain_dp_evaluate);
PG_FUNCTION_INFO_V1(dptrain_dp_evaluate_id);

// dp_predict(model text, features float8[]) -> text (STRICT)
Datum dptrain_dp_predict(PG_FUNCTION_ARGS) { return predict(fcinfo, false); }

// dp_predict(model bigint, features float8[]) -> text (STRICT)
Datum dptrain_dp_predict_id(PG_FUNCTION_ARGS) { return predict(fcinfo, true); }

// dp_predict_proba(model text | bigint, features float8[]) -> float8[] (STRICT)
Datum dptrain_dp_predict_proba(PG_FUNCTION_ARGS) { return predict_proba(fcinfo, false); }
Datum dptrain_dp_predict_proba_id(PG_FUNCTION_ARGS) { return predict_proba(fcinfo, true); }

// decision_score(model float8[], x float8[]) -> float8 (STRICT): w.x of a
// packed binary model, the score dp_evaluate ranks for ROC AUC.
Datum dptrain_decision_score(PG_FUNCTION_ARGS) {
  int plen = 0, len = 0;
  const double* p = checked_packed(PG_GETARG_ARRAYTYPE_P(0), &plen);
  const double* x = float8_array_data(PG_GETARG_ARRAYTYPE_P(1), &len, "features");
  double score = 0;
  DPT_CORE({ score = pm::decision_score(p, x, len); });
  PG_RETURN_FLOAT8(score);
}

// evaluate_transition(state float8[], x float8[], label_index int, model float8[])
Datum dptrain_evaluate_transition(PG_FUNCTION_ARGS) { return evaluate_row(fcinfo, false); }
// evaluate_transition(state float8[], x dptrain.sparsevec, label_index int, model float8[])
Datum dptrain_evaluate_sparse_transition(PG_FUNCTION_ARGS) { return evaluate_row(fcinfo, true); }

}  // extern "C"

namespace {

Datum evaluate_row(FunctionCallInfo fcinfo, bool sparse) {
  MemoryContext aggcontext;
  if (!AggCheckCallContext(fcinfo, &aggcontext))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("evaluate_transition must run as an aggregate"),
                    errhint("Use dp_evaluate.")));
  if (PG_ARGISNULL(3))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("model must not be NULL"),
                    errhint("Use dp_evaluate with a stored model.")));
  int plen = 0;
  const double* p = checked_packed(PG_GETARG_ARRAYTYPE_P(3), &plen);
  const int size = dptrain::evaluation::totals_size(pm::classes(p));
  ArrayType* state;
  if (PG_ARGISNULL(0)) {
    const std::vector<double> zero(static_cast<std::size_t>(size), 0.0);
    MemoryContext old = MemoryContextSwitchTo(aggcontext);
    state = dptrain::pg::make_float8_array(zero.data(), size);
    MemoryContextSwitchTo(old);
  } else {
    state = PG_GETARG_ARRAYTYPE_P(0);
    int slen = 0;
    float8_array_data(state, &slen, "evaluation state");
    if (slen != size) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("malformed evaluation state"),
                                      errhint("%s", kStateHint)));
  }
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("feature array must not be NULL"),
                    errhint("Remove or repair rows with NULL features before evaluating.")));
  int len = 0;
  const double* x = features_arg(fcinfo, sparse, &len);
  const int label = PG_ARGISNULL(2) ? -1 : PG_GETARG_INT32(2);
  double* totals = reinterpret_cast<double*>(ARR_DATA_PTR(state));
  DPT_CORE({ pm::accumulate(p, x, len, label, totals); });
  PG_RETURN_ARRAYTYPE_P(state);
}

}  // namespace

extern "C" {

Datum dptrain_evaluate_combine(PG_FUNCTION_ARGS) {
  MemoryContext aggcontext;
  if (!AggCheckCallContext(fcinfo, &aggcontext))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("evaluate_combine must run as an aggregate"),
                    errhint("Use dp_evaluate.")));
  if (PG_ARGISNULL(1)) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
  }
  int blen = 0;
  const double* b = float8_array_data(PG_GETARG_ARRAYTYPE_P(1), &blen, "evaluation state");
  if (blen < dptrain::evaluation::totals_size(2))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("malformed evaluation state"),
                    errhint("%s", kStateHint)));
  if (PG_ARGISNULL(0)) {
    MemoryContext old = MemoryContextSwitchTo(aggcontext);
    ArrayType* copy = dptrain::pg::make_float8_array(b, blen);
    MemoryContextSwitchTo(old);
    PG_RETURN_ARRAYTYPE_P(copy);
  }
  ArrayType* state = PG_GETARG_ARRAYTYPE_P(0);
  int alen = 0;
  double* a = const_cast<double*>(float8_array_data(state, &alen, "evaluation state"));
  if (alen != blen) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("malformed evaluation state"),
                                    errhint("%s", kStateHint)));
  for (int i = 0; i < alen; ++i) a[i] += b[i];
  PG_RETURN_ARRAYTYPE_P(state);
}

}  // extern "C"

namespace {

// Exact ROC AUC of a binary model (positive = the model's second class) from
// one sorted pass: rows grouped by decision score, in ascending order, with
// each group's positives and negatives (rows of unknown labels left out).
// `x` is the features expression (a quoted column, or the model's encoding).
std::optional<double> binary_roc_auc(const dptrain::pg::SourceRead& table, const char* qualified, const char* x,
                                     const char* label_class, ArrayType* classes, ArrayType* packed) {
  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql,
                   "SELECT count(*) FILTER (WHERE pos)::float8, count(*) FILTER (WHERE NOT pos)::float8 FROM ("
                   "SELECT dptrain.decision_score($2, %s::float8[]) s, %s = $1[2] pos FROM %s "
                   "WHERE %s = ANY ($1)) q GROUP BY s ORDER BY s",
                   x, label_class, qualified, label_class);
  Oid types[2] = {TEXTARRAYOID, FLOAT8ARRAYOID};
  Datum values[2] = {PointerGetDatum(classes), PointerGetDatum(packed)};
  if (dptrain::pg::execute_checked(sql.data, 2, types, values, true, 0, table) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: ROC AUC query failed");
  std::vector<dptrain::evaluation::ScoreGroup> groups(SPI_processed);
  bool isnull;
  for (uint64 i = 0; i < SPI_processed; ++i) {
    groups[i].positives = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
    groups[i].negatives = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
  }
  return dptrain::evaluation::roc_auc(groups);
}

// The features expression of a model's stored encoding over the columns of
// `relid`, checked against their types; an error if the model has none.
const char* model_features_sql(Oid relid, const dptrain::pg::StoredModel& model) {
  if (model.encoding == nullptr)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("model %lld stores no feature encoding", (long long) model.id),
                    errhint("Pass its feature column: dp_evaluate(model, table, label, features).")));
  dptrain::pg::check_encoding_fits(relid, model.encoding);
  return dptrain::pg::encoded_features_sql(model.encoding, relid, false);  // as the caller, a reader
}

Datum optional_datum(const std::optional<double>& v, bool* null) {
  *null = !v.has_value();
  return Float8GetDatum(v.value_or(0));
}

// The confusion matrix as a C x C bigint array, [true class][predicted class].
ArrayType* confusion_array(const dptrain::evaluation::Metrics& m) {
  const int C = static_cast<int>(m.confusion.size());
  std::vector<Datum> cells;
  for (const auto& row : m.confusion)
    for (long long c : row) cells.push_back(Int64GetDatum(c));
  int dims[2] = {C, C}, lbs[2] = {1, 1};
  return construct_md_array(cells.data(), nullptr, 2, dims, lbs, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
                            TYPALIGN_DOUBLE);
}

// (accuracy, n, loss, majority_rate, precision, recall, f1, roc_auc,
//  macro_f1, classes, confusion), in the order of dp_evaluate's OUT columns.
HeapTuple metrics_tuple(TupleDesc tupdesc, const dptrain::evaluation::Metrics& m, const std::optional<double>& auc,
                        ArrayType* classes) {
  Datum out[11];
  bool nulls[11] = {};
  out[0] = Float8GetDatum(m.accuracy);
  out[1] = Int64GetDatum(m.rows);
  out[2] = Float8GetDatum(m.mean_loss);
  out[3] = Float8GetDatum(m.majority_rate);
  out[4] = optional_datum(m.precision, &nulls[4]);
  out[5] = optional_datum(m.recall, &nulls[5]);
  out[6] = optional_datum(m.f1, &nulls[6]);
  out[7] = optional_datum(auc, &nulls[7]);
  out[8] = optional_datum(m.macro_f1, &nulls[8]);
  out[9] = PointerGetDatum(classes);
  out[10] = PointerGetDatum(confusion_array(m));
  return heap_form_tuple(tupdesc, out, nulls);
}

// Rows whose label is none of the model's classes count as errors (metrics.h);
// a table labelled otherwise than the training table (0/1 against a boolean
// model, 'yes' against 'true') would otherwise give a silent accuracy of 0.
void warn_unknown_labels(const dptrain::evaluation::Metrics& metrics, const char* relname, const char* label,
                         const dptrain::pg::StoredModel& model) {
  StringInfoData names;
  initStringInfo(&names);
  const int shown = std::min(model.nclasses, 10);
  for (int i = 0; i < shown; ++i) appendStringInfo(&names, "%s%s", i > 0 ? ", " : "", quote_literal_cstr(model.classes[i]));
  if (shown < model.nclasses) appendStringInfo(&names, ", ... (%d classes)", model.nclasses);
  ereport(WARNING,
          (errcode(ERRCODE_WARNING),
           errmsg("%lld of %lld rows of \"%s\" have a label that is none of the model's classes",
                  static_cast<long long>(metrics.unknown_labels), static_cast<long long>(metrics.rows), relname),
           errdetail("They count as errors. The model's classes are %s; a label is compared as its text "
                     "(%s::text; a number without trailing zeros, -0 as 0), so 1 is not true and 'yes' is not "
                     "'true'.",
                     names.data, quote_identifier(label)),
           errhint("Evaluate on labels spelled as the model's classes (convert them in a view if needed).")));
}

// The table to evaluate on and its columns: they exist, and have types
// dp_train accepts. Returns the table's name, the features' element type in
// *feature_elem and the label's base type in *label_type.
char* require_evaluation_columns(Oid relid, const char* label, const char* features, Oid* feature_elem,
                                 Oid* label_type) {
  char* relname = get_rel_name(relid);
  if (relname == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid),
                    errhint("Pass the table as a name, e.g. source => 'my_schema.my_table'.")));
  for (const char* column : {label, features})
    if (column != nullptr && get_attnum(relid, column) == InvalidAttrNumber)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("column \"%s\" of relation \"%s\" does not exist", column, relname),
                      errhint("Pass the label and feature column names as they are spelled in the table.")));
  // A text or scalar feature column failed as a cast ("malformed array literal"
  // with the value), an array label counted every row as an unknown class.
  *feature_elem = dptrain::pg::check_evaluation_columns(relid, label, features, label_type);
  return relname;
}

// The model's classes as text[], in `context` (they are also part of the result).
ArrayType* model_classes_array(const dptrain::pg::StoredModel& model, MemoryContext context) {
  MemoryContext old = MemoryContextSwitchTo(context);
  Datum* items = static_cast<Datum*>(palloc(sizeof(Datum) * model.nclasses));
  for (int i = 0; i < model.nclasses; ++i) items[i] = CStringGetTextDatum(model.classes[i]);
  ArrayType* classes = construct_array(items, model.nclasses, TEXTOID, -1, false, TYPALIGN_INT);
  MemoryContextSwitchTo(old);
  return classes;
}

// A numeric[] feature column holding a value no double holds failed the
// evaluation's cast as PostgreSQL's bare 22003 printing it (400 digits for
// 1e-400): dp_train's error instead, from one more scan.
void refuse_values_beyond_float8(const dptrain::pg::SourceRead& table, const char* qualified, const char* x,
                                 const char* features) {
  StringInfoData check;
  initStringInfo(&check);
  appendStringInfo(&check, "SELECT EXISTS (SELECT FROM %s WHERE %s)", qualified,
                   dptrain::pg::numeric_beyond_float8_sql(x));
  if (dptrain::pg::execute_checked(check.data, 0, nullptr, nullptr, true, 0, table) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: evaluation query failed");
  bool null;
  if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &null)))
    dptrain::pg::refuse_numeric_beyond_float8(features);
}

// dp_evaluate(model text | bigint, source regclass, label text, features text)
//   -> (accuracy float8, n bigint, loss float8, ...). features NULL: the
// model's stored encoding applied to the raw columns (encoded_features.h).
// dp_evaluate reads the rows as the caller, and its result (accuracy,
// confusion counts, n) is no DP release: a caller that may not SELECT the
// label and every feature column is refused here, by name, before anything
// reads the table -- not by PostgreSQL's "permission denied for table" from
// inside dptrain's own statement (whose text it printed as CONTEXT). A
// budget does not help: it pays for training only.
void refuse_unreadable_evaluation(Oid relid, const char* relname, const char* label, char** columns, int ncolumns) {
  const Oid caller = GetUserId();
  if (pg_class_aclcheck(relid, caller, ACL_SELECT) == ACLCHECK_OK) return;
  const char* missing = nullptr;
  if (pg_attribute_aclcheck(relid, get_attnum(relid, label), caller, ACL_SELECT) != ACLCHECK_OK) missing = label;
  for (int i = 0; missing == nullptr && i < ncolumns; ++i) {
    const AttrNumber att = get_attnum(relid, columns[i]);  // a missing one is reported below
    if (att != InvalidAttrNumber && pg_attribute_aclcheck(relid, att, caller, ACL_SELECT) != ACLCHECK_OK)
      missing = columns[i];
  }
  if (missing == nullptr) return;
  ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                  errmsg("permission denied to evaluate on \"%s\"", relname),
                  errdetail("Role %s may not read its column \"%s\"; dp_evaluate reads the rows, and its result is "
                            "not differentially private.",
                            GetUserNameFromId(caller, false), missing),
                  errhint("Evaluate on a table you may read (the owner can grant SELECT on the columns); a privacy "
                          "budget pays for training only.")));
}

Datum evaluate(FunctionCallInfo fcinfo, bool by_id) {
  for (int i = 0; i < 3; ++i)
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("dp_evaluate arguments must not be NULL"),
                      errhint("Pass the model, the table and its label column (and its feature column unless the "
                              "model stores an encoding).")));
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE) elog(ERROR, "dp_evaluate must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  const Oid relid = PG_GETARG_OID(1);
  const char* label = text_to_cstring(PG_GETARG_TEXT_PP(2));
  const char* features = PG_ARGISNULL(3) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(3));
  Oid feature_elem, label_type;
  char* relname = require_evaluation_columns(relid, label, features, &feature_elem, &label_type);
  // The row's class text, as training maps it (label_classes.h): a numeric
  // 1.0 is the class '1'.
  const char* label_class = dptrain::pg::label_class_sql(quote_identifier(label), label_type);

  MemoryContext caller = CurrentMemoryContext;
  SPI_connect();
  // The table's name, or a Citus table's guarded read of its shards
  // (shard_guard.h): every node checks what it reads under the shard names.
  const char* qualified = dptrain::pg::guarded_source_sql(relid);
  dptrain::pg::StoredModel model;
  if (by_id) dptrain::pg::load_model_by_id(PG_GETARG_INT64(0), caller, &model);
  else dptrain::pg::load_model(text_to_cstring(PG_GETARG_TEXT_PP(0)), caller, &model);
  ArrayType* classes = model_classes_array(model, caller);
  if (features != nullptr) {
    char* feature_column = pstrdup(features);
    refuse_unreadable_evaluation(relid, relname, label, &feature_column, 1);
  } else if (model.encoding != nullptr) {
    int n = 0;
    char** columns = dptrain::pg::encoding_column_names(model.encoding, &n);
    refuse_unreadable_evaluation(relid, relname, label, columns, n);
  }
  const char* x = features != nullptr ? quote_identifier(features) : model_features_sql(relid, model);

  Oid types[2] = {TEXTARRAYOID, FLOAT8ARRAYOID};
  Datum values[2] = {PointerGetDatum(classes), PointerGetDatum(model.packed)};
  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql,
                   "SELECT s, nulls FROM ("
                   "SELECT dptrain.evaluate_agg(%s::float8[], (array_position($1, %s) - 1)::int, $2) s, "
                   "count(*) FILTER (WHERE %s IS NULL) nulls FROM %s) q",
                   x, label_class, quote_identifier(label), qualified);
  // The statements name the table by text, and run with the caller's
  // rights: parsed, they must read `relid` and nothing else by name
  // (statement_checks.h: a schema renamed meanwhile by another session could
  // put a view there whose functions would run as the caller).
  dptrain::pg::SourceRead table;
  table.source = relid;
  table.what = "the table to evaluate on";
  if (feature_elem == NUMERICOID) refuse_values_beyond_float8(table, qualified, x, features);
  // A Citus table's shards get the model ($2) as the text of the statement
  // Citus sends them, and return their sums as text: under the caller's
  // extra_float_digits <= 0 both were rounded (the model evaluated was not the
  // stored one). The passes' settings print them exactly (distributed_source.h).
  const int guc_level = dptrain::pg::is_citus_table(relid) ? dptrain::pg::begin_distributed_passes(false) : 0;
  if (dptrain::pg::execute_checked(sql.data, 2, types, values, true, 0, table) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: evaluation query failed");
  bool state_null, isnull;
  HeapTuple row = SPI_tuptable->vals[0];
  TupleDesc desc = SPI_tuptable->tupdesc;
  // The aggregate's state is NULL over no rows (count(*) is 0, not NULL):
  // its own flag, or an empty table detoasts a NULL pointer.
  const Datum state = SPI_getbinval(row, desc, 1, &state_null);
  const int64 null_labels = DatumGetInt64(SPI_getbinval(row, desc, 2, &isnull));
  if (null_labels > 0)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("label column \"%s\" contains NULL values", label),
                    errhint("Remove rows with NULL labels before evaluating.")));
  std::vector<double> totals;
  if (!state_null) {
    int len = 0;
    const double* t = float8_array_data(DatumGetArrayTypeP(state), &len, "evaluation state");
    totals.assign(t, t + len);
  }
  if (totals.empty() || totals[0] == 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("table \"%s\" has no rows to evaluate on", relname),
                    errhint("Evaluate on a table with at least one row.")));
  dptrain::evaluation::Metrics metrics;
  DPT_CORE({ metrics = dptrain::evaluation::metrics_from_totals(totals, model.nclasses); });
  if (metrics.unknown_labels > 0) warn_unknown_labels(metrics, relname, label, model);
  std::optional<double> auc;
  if (model.nclasses == 2) auc = binary_roc_auc(table, qualified, x, label_class, classes, model.packed);
  if (guc_level != 0) dptrain::pg::end_distributed_passes(guc_level);
  SPI_finish();
  PG_RETURN_DATUM(HeapTupleGetDatum(metrics_tuple(tupdesc, metrics, auc, classes)));
}

}  // namespace

extern "C" {

Datum dptrain_dp_evaluate(PG_FUNCTION_ARGS) { return evaluate(fcinfo, false); }
Datum dptrain_dp_evaluate_id(PG_FUNCTION_ARGS) { return evaluate(fcinfo, true); }

}  // extern "C"
