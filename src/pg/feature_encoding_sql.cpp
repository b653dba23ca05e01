// Features from ordinary columns (core/preprocessing/feature_encoding.h,
// docs/encoding.md): the per-row encoding functions and the registry of
// encoded views.
//
//   dptrain.encode_row(encoding jsonb, VARIADIC "values" text[]) -> float8[]
//   dptrain.encode_json_row(encoding jsonb, "row" jsonb)           -> float8[]
//   dptrain.encoding_check(encoding jsonb)                         -> jsonb
//   dptrain.register_encoding(view regclass, encoding jsonb)       -> void
//
// The encode functions return NULL for a row without features (a NULL or NaN
// number or boolean), which training and evaluation treat like NULL features.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "access.h"
#include "access/xact.h"
#include "core/preprocessing/feature_encoding.h"
#include "feature_encodings.h"
#include "models.h"
#include "pg_glue.h"
#include "utils/numeric.h"

namespace {

using dptrain::preprocessing::FeatureEncoding;

std::string jsonb_text(Jsonb* jb) { return JsonbToCString(nullptr, &jb->root, VARSIZE(jb)); }

// The parsed encoding of the last call, kept in fn_extra while the jsonb
// bytes stay the same (a constant per query): parsing once per row would
// cost more than the encoding.
struct CachedEncoding {
  std::string bytes;
  std::unique_ptr<FeatureEncoding> encoding;
};

const FeatureEncoding& cached_encoding(FunctionCallInfo fcinfo, Jsonb* jb) {
  auto* cache = static_cast<CachedEncoding*>(fcinfo->flinfo->fn_extra);
  if (cache == nullptr) {
    DPT_CORE({ cache = new CachedEncoding(); });
    dptrain::pg::delete_on_reset(fcinfo->flinfo->fn_mcxt, cache);
    fcinfo->flinfo->fn_extra = cache;
  }
  const std::string_view bytes(reinterpret_cast<const char*>(jb), VARSIZE(jb));
  if (!cache->encoding || cache->bytes != bytes) {
    const std::string text = jsonb_text(jb);
    DPT_CORE({
      cache->encoding.reset();
      auto parsed = std::make_unique<FeatureEncoding>(FeatureEncoding::from_json(nlohmann::json::parse(text)));
      cache->bytes.assign(bytes);
      cache->encoding = std::move(parsed);
    });
  }
  return *cache->encoding;
}

Datum encoded(FunctionCallInfo fcinfo, const FeatureEncoding& e,
              const std::vector<std::optional<std::string_view>>& values) {
  std::vector<double>* x = nullptr;
  bool usable = false;
  DPT_CORE({
    auto v = std::make_unique<std::vector<double>>(static_cast<std::size_t>(e.dim()));
    usable = e.encode(values, v->data());
    x = v.release();
  });
  std::unique_ptr<std::vector<double>> owned(x);
  if (!usable) PG_RETURN_NULL();
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(owned->data(), static_cast<int>(owned->size())));
}

// A scalar of a jsonb row as text (PostgreSQL's output form), nullopt for
// JSON null or a missing key.
std::optional<std::string> json_scalar_text(Jsonb* row, const std::string& key) {
  JsonbValue buf;
  JsonbValue* v = getKeyJsonValueFromContainer(&row->root, key.data(), static_cast<int>(key.size()), &buf);
  if (v == nullptr || v->type == jbvNull) return std::nullopt;
  switch (v->type) {
    case jbvString: return std::string(v->val.string.val, static_cast<std::size_t>(v->val.string.len));
    case jbvBool: return std::string(v->val.boolean ? "true" : "false");
    case jbvNumeric:
      return std::string(DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric))));
    default:
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("value of \"%s\" must be a number, a string, a boolean or null", key.c_str()),
                      errhint("Pass to_jsonb(row) of a row with the encoded columns.")));
  }
  return std::nullopt;
}

// The feature vector of a JSON row under `e` (NULL: the row has no features).
Datum encoded_json_row(FunctionCallInfo fcinfo, const FeatureEncoding& e, Jsonb* row) {
  if (!JB_ROOT_IS_OBJECT(row))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("the row must be a JSON object"),
                    errhint("Pass to_jsonb(t) of a row t, or jsonb_build_object('column', value, ...).")));
  std::vector<std::optional<std::string>> texts;
  for (const auto& c : e.columns()) texts.push_back(json_scalar_text(row, c.name));
  std::vector<std::optional<std::string_view>> values;
  for (const auto& t : texts) values.push_back(t ? std::optional<std::string_view>(*t) : std::nullopt);
  return encoded(fcinfo, e, values);
}

// dp_features' model, looked up on the first call of a call site and kept
// with its parsed encoding (keyed by the reference, in case it changes from
// row to row, and read again when the caller or the snapshot changed:
// models.h, ModelRead): one query per call site, not per row.
struct ModelEncodingCache {
  bool by_id = false;
  int64 id = 0;
  std::string reference;
  dptrain::pg::ModelRead read;
  std::unique_ptr<FeatureEncoding> encoding;
};

const FeatureEncoding& model_encoding(FunctionCallInfo fcinfo, bool by_id) {
  const int64 id = by_id ? PG_GETARG_INT64(0) : 0;
  const char* reference = by_id ? "" : text_to_cstring(PG_GETARG_TEXT_PP(0));
  const dptrain::pg::ModelRead now = dptrain::pg::model_read_now();
  auto* cache = static_cast<ModelEncodingCache*>(fcinfo->flinfo->fn_extra);
  if (cache != nullptr && cache->encoding && cache->by_id == by_id &&
      (by_id ? cache->id == id : cache->reference == reference) && dptrain::pg::same_model_read(cache->read, now))
    return *cache->encoding;
  if (cache == nullptr) {
    DPT_CORE({ cache = new ModelEncodingCache(); });
    dptrain::pg::delete_on_reset(fcinfo->flinfo->fn_mcxt, cache);
    fcinfo->flinfo->fn_extra = cache;
  }
  // No SET clause (it would cost a GUC save and restore per row): the path
  // is pinned here, around the only SQL.
  MemoryContext caller = CurrentMemoryContext;
  const int pinned = dptrain::pg::pin_search_path();
  SPI_connect();
  dptrain::pg::StoredModel model;
  if (by_id) dptrain::pg::load_model_by_id(id, caller, &model);
  else dptrain::pg::load_model(reference, caller, &model);
  if (model.encoding == nullptr)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("model %s stores no feature encoding",
                           by_id ? psprintf("%lld", (long long) id) : psprintf("\"%s\"", reference)),
                    errhint("Pass its feature vectors to dp_predict directly.")));
  SPI_finish();
  dptrain::pg::unpin_search_path(pinned);
  const char* text = model.encoding;
  DPT_CORE({
    cache->encoding.reset();
    auto parsed = std::make_unique<FeatureEncoding>(FeatureEncoding::from_json(nlohmann::json::parse(text)));
    cache->by_id = by_id;
    cache->id = id;
    cache->reference = reference;
    cache->read = now;
    cache->encoding = std::move(parsed);
  });
  return *cache->encoding;
}

// Only a view created in this very transaction (by dp_encoded_view, which
// registers what it just created) can be registered: an owner cannot attach
// an encoding to a table, to another view, or to a temporary view (which
// sql_drop never reports when its session ends).
void require_fresh_view(Oid view) {
  HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(view));
  if (!HeapTupleIsValid(tuple))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", view),
                    errhint("Create encoded views with dp_encoded_view.")));
  const auto* form = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple));
  const bool view_kind = form->relkind == RELKIND_VIEW, temporary = form->relpersistence == RELPERSISTENCE_TEMP;
  const bool fresh = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));
  ReleaseSysCache(tuple);
  if (!view_kind || temporary || !fresh)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("only a permanent view created in this transaction can be registered"),
                    errhint("Create encoded views with dp_encoded_view.")));
}

}  // namespace

namespace dptrain::pg {

std::optional<std::string> registered_encoding(Oid relid) {
  Oid types[1] = {OIDOID};
  Datum values[1] = {ObjectIdGetDatum(relid)};
  // Still the registered view: same oid, still a view, same definition (a
  // CREATE OR REPLACE VIEW afterwards makes the registration void).
  if (SPI_execute_with_args("SELECT e.encoding::pg_catalog.text FROM dptrain.feature_encodings e "
                            "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) e.relation::pg_catalog.oid "
                            "WHERE e.relation::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
                            "AND c.relkind OPERATOR(pg_catalog.=) 'v' "
                            "AND pg_catalog.pg_get_viewdef(c.oid) OPERATOR(pg_catalog.=) e.definition",
                            1, types, values, nullptr, true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.feature_encodings");
  if (SPI_processed == 0) return std::nullopt;
  return std::string(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
}

bool encoding_reads_data(const std::string& encoding_json) {
  bool reads = false;
  DPT_CORE({ reads = FeatureEncoding::from_json(nlohmann::json::parse(encoding_json)).any_categories_from_data(); });
  return reads;
}

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_encode_row);
PG_FUNCTION_INFO_V1(dptrain_encode_json_row);
PG_FUNCTION_INFO_V1(dptrain_encoding_check);
PG_FUNCTION_INFO_V1(dptrain_register_encoding);
PG_FUNCTION_INFO_V1(dptrain_dp_features);
PG_FUNCTION_INFO_V1(dptrain_dp_features_id);

Datum dptrain_encode_row(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("encoding and values must not be NULL"),
                    errhint("Pass an encoding built by dp_encoding and one value per column (NULL values are fine).")));
  const FeatureEncoding& e = cached_encoding(fcinfo, PG_GETARG_JSONB_P(0));
  Datum* items;
  bool* nulls;
  int n;
  deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &n);
  std::vector<std::string> texts(static_cast<std::size_t>(n));
  std::vector<std::optional<std::string_view>> values(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (nulls[i]) continue;
    texts[i] = TextDatumGetCString(items[i]);
    values[i] = texts[i];
  }
  return encoded(fcinfo, e, values);
}

Datum dptrain_encode_json_row(PG_FUNCTION_ARGS) {
  return encoded_json_row(fcinfo, cached_encoding(fcinfo, PG_GETARG_JSONB_P(0)), PG_GETARG_JSONB_P(1));
}

// dp_features(model text | bigint, "row" jsonb) -> float8[] (STRICT)
Datum dptrain_dp_features(PG_FUNCTION_ARGS) {
  return encoded_json_row(fcinfo, model_encoding(fcinfo, false), PG_GETARG_JSONB_P(1));
}
Datum dptrain_dp_features_id(PG_FUNCTION_ARGS) {
  return encoded_json_row(fcinfo, model_encoding(fcinfo, true), PG_GETARG_JSONB_P(1));
}

Datum dptrain_encoding_check(PG_FUNCTION_ARGS) {
  const std::string text = jsonb_text(PG_GETARG_JSONB_P(0));
  std::string normalized;
  DPT_CORE({ normalized = FeatureEncoding::from_json(nlohmann::json::parse(text)).to_json().dump(); });
  return DirectFunctionCall1(jsonb_in, CStringGetDatum(normalized.c_str()));
}

// Only the owner of a view registers its encoding; the row is written with
// the extension owner's rights (the registry is not writable by PUBLIC).
Datum dptrain_register_encoding(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("view and encoding must not be NULL"),
                    errhint("Create encoded views with dp_encoded_view.")));
  const Oid view = PG_GETARG_OID(0);
  const Oid caller = GetUserId();
  if (!has_privs_of_role(caller, dptrain::pg::relation_owner(view)))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("only the owner of a view registers its encoding"),
                    errhint("Create encoded views with dp_encoded_view.")));
  require_fresh_view(view);
  Datum checked = DirectFunctionCall1(dptrain_encoding_check, PG_GETARG_DATUM(1));
  SPI_connect();
  dptrain::pg::IdentitySwitch sw;
  dptrain::pg::switch_identity(&sw, dptrain::pg::function_owner(fcinfo), false);
  Oid types[3] = {REGCLASSOID, JSONBOID, NAMEOID};
  Datum values[3] = {ObjectIdGetDatum(view), checked,
                     DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(caller, false)))};
  // Registrations whose relation is gone (e.g. dropped while the event
  // trigger was disabled) go first: their oids may be reused.
  if (SPI_execute("DELETE FROM dptrain.feature_encodings e WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class c "
                  "WHERE c.oid OPERATOR(pg_catalog.=) e.relation::pg_catalog.oid)", false, 0) != SPI_OK_DELETE ||
      SPI_execute_with_args("INSERT INTO dptrain.feature_encodings (relation, encoding, created_by, definition) "
                            "VALUES ($1, $2, $3, pg_catalog.pg_get_viewdef($1)) ON CONFLICT (relation) DO UPDATE "
                            "SET encoding = EXCLUDED.encoding, created_by = EXCLUDED.created_by, "
                            "definition = EXCLUDED.definition",
                            3, types, values, nullptr, false, 0) != SPI_OK_INSERT)
    elog(ERROR, "dptrain: could not register the encoding");
  dptrain::pg::restore_identity(&sw);
  SPI_finish();
  PG_RETURN_VOID();
}

}  // extern "C"
