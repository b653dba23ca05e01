#include "models.h"

#include <memory>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/ledger_charge.h"
#include "core/model.h"
#include "core/packed_model.h"
#include "feature_encodings.h"
#include "ledger.h"
#include "load_specs.h"
#include "model_name_holder.h"
#include "writable_transaction.h"

extern "C" {
#include "mb/pg_wchar.h"
}

namespace dptrain::pg {
namespace {

// The CHECK of dptrain.models.name (sql/00_schema.sql), as a regex.
constexpr const char* kIdLikeName = "^\\s*[-+]?[0-9]+\\s*$";

// What store_model_json needs from the JSON, parsed by the core.
struct ParsedModel {
  dptrain::Model model;
  std::vector<double> weights;  // row-major K x d
  std::string details;          // jsonb text
  std::string source;
};

// INSERT INTO dptrain.models, as the runner, created by the caller, under
// the id its charge reserved (0: a new one); returns the id.
int64 insert_model(const ParsedModel& parsed, const RunIdentities& ids, Oid relid, int64 reserved_id) {
  const dptrain::Model& m = parsed.model;
  const int K = static_cast<int>(m.weights.rows()), d = static_cast<int>(m.weights.cols());
  ArrayType* weights = K == 1 ? make_float8_array(parsed.weights.data(), d)
                              : make_float8_matrix(parsed.weights.data(), K, d);
  Oid types[13] = {TEXTOID,      TEXTOID,        TEXTOID, FLOAT8OID, FLOAT8OID, TEXTOID,    TEXTARRAYOID,
                   FLOAT8ARRAYOID, BOOLOID,       JSONBOID, NAMEOID,   REGCLASSOID, INT8OID};
  Datum values[13];
  char nulls[14] = "             ";
  if (m.name.empty()) nulls[0] = 'n';
  else values[0] = CStringGetTextDatum(m.name.c_str());
  values[1] = CStringGetTextDatum(m.algorithm.c_str());
  values[2] = CStringGetTextDatum(dptrain::loss_name(m.loss).c_str());
  if (m.epsilon) values[3] = Float8GetDatum(*m.epsilon);
  else nulls[3] = 'n';
  if (m.delta) values[4] = Float8GetDatum(*m.delta);
  else nulls[4] = 'n';
  values[5] = CStringGetTextDatum(parsed.source.c_str());
  values[6] = PointerGetDatum(make_text_array(m.classes.data(), static_cast<int>(m.classes.size())));
  values[7] = PointerGetDatum(weights);
  values[8] = BoolGetDatum(m.seeded);
  values[9] = DirectFunctionCall1(jsonb_in, CStringGetDatum(parsed.details.c_str()));
  values[10] = DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(ids.caller, false)));
  // A temporary relation ends with its session (or ON COMMIT DROP, DISCARD
  // TEMP) without the sql_drop trigger that clears the references of a
  // dropped one (sql/45_budgets.sql): its OID, kept, could name a later
  // relation, whose owner and readers would then see this model. Nobody
  // else reads a temporary relation, so the model is its creator's only.
  values[11] = ObjectIdGetDatum(OidIsValid(relid) && get_rel_persistence(relid) == RELPERSISTENCE_TEMP ? InvalidOid
                                                                                                      : relid);
  values[12] = Int64GetDatum(reserved_id);
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  if (SPI_execute_with_args("INSERT INTO dptrain.models (id, name, algorithm, loss, epsilon, delta, source, "
                            "classes, weights, seeded, details, created_by, source_table) "
                            "VALUES (CASE WHEN $13 > 0 THEN $13 ELSE nextval('dptrain.models_id_seq') END, "
                            "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) "
                            "ON CONFLICT (created_by, name) DO NOTHING RETURNING id",
                            13, types, values, nulls, false, 0) != SPI_OK_INSERT_RETURNING)
    elog(ERROR, "dptrain: could not store the model");
  restore_identity(&sw);
  // The name was free when the run began (check_model_name); a concurrent
  // run of the same role took it since. (The unique violation's own error
  // would be raw; the CHECK's would print the whole row.)
  if (SPI_processed == 0)
    ereport(ERROR, (errcode(ERRCODE_UNIQUE_VIOLATION),
                    errmsg("you already have a model named \"%s\"", m.name.c_str()),
                    errdetail("Another of your runs stored a model under this name while this one ran; this "
                              "model was not stored (a private run stays charged)."),
                    errhint("Train again with another name, or leave name NULL.")));
  bool isnull;
  return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

// The white space int8in skips (isspace in the C locale).
bool c_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// An integer as int8in would read it (surrounding spaces, a sign): an id.
bool looks_like_id(const char* text, int64* id) {
  const char* p = text;
  while (c_space(*p)) ++p;
  if (*p == '+' || *p == '-') ++p;
  if (*p < '0' || *p > '9') return false;
  while (*p >= '0' && *p <= '9') ++p;
  while (c_space(*p)) ++p;
  if (*p != '\0') return false;
  if (id != nullptr) *id = pg_strtoint64(text);
  return true;
}

// The first control character of `name` -- C0 (0x01-0x1f), DEL (0x7f), and
// in a UTF-8 database C1 (U+0080-U+009F) -- as its 1-based byte position,
// its code in *code; 0 if none. A name is printed by every listing (dptrain
// models, psql): a newline forges lines, an ESC sequence drives the
// terminal. (In another encoding the bytes 0x80-0x9f may be printable: WIN1252's
// euro sign.)
int control_character(const char* name, unsigned* code) {
  const bool utf8 = GetDatabaseEncoding() == PG_UTF8;
  for (int i = 0; name[i] != '\0'; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const auto next = static_cast<unsigned char>(name[i + 1]);
    if (c < 0x20 || c == 0x7f || (utf8 && c == 0xc2 && next >= 0x80 && next <= 0x9f)) {
      *code = c == 0xc2 ? next : c;
      return i + 1;
    }
  }
  return 0;
}

}  // namespace

void check_model_name(const char* name, const RunIdentities& ids) {
  if (name == nullptr) return;
  if (name[0] == '\0')
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a model name must not be empty"),
                    errhint("Leave name NULL for an unnamed model.")));
  // The table's CHECK itself decides what looks like an id (its regex's \s
  // is the locale's white space, more than int8in skips), and whether the
  // name is taken: both before the charge, as a failed INSERT would come
  // after it.
  Oid types[3] = {TEXTOID, NAMEOID, TEXTOID};
  Datum values[3] = {CStringGetTextDatum(name),
                     DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(ids.caller, false))),
                     CStringGetTextDatum(kIdLikeName)};
  IdentitySwitch sw;
  switch_identity(&sw, ids.runner, false);
  if (SPI_execute_with_args("SELECT $1 OPERATOR(pg_catalog.~) $3, EXISTS (SELECT FROM dptrain.models "
                            "WHERE name OPERATOR(pg_catalog.=) $1 AND created_by OPERATOR(pg_catalog.=) $2)",
                            3, types, values, nullptr, true, 1) != SPI_OK_SELECT ||
      SPI_processed != 1)
    elog(ERROR, "dptrain: could not read dptrain.models");
  restore_identity(&sw);
  bool isnull;
  const bool id_like = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
  const bool taken = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
  if (id_like || looks_like_id(name, nullptr))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("model name \"%s\" looks like a model id", name),
                    errdetail("A reference that looks like an integer always means a model id."),
                    errhint("Choose a name with a letter in it.")));
  unsigned code = 0;
  if (const int at = control_character(name, &code))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a model name must not contain control characters"),
                    code < 0x80 ? errdetail("Byte %d is the control character 0x%02x.", at, code)
                                : errdetail("Byte %d starts the control character U+%04X.", at, code),
                    errhint("Choose a name of printable characters (no newline, tab or escape sequence).")));
  if (taken)
    ereport(ERROR, (errcode(ERRCODE_DUPLICATE_OBJECT), errmsg("you already have a model named \"%s\"", name),
                    errhint("Choose another name, or leave name NULL.")));
  // Held by a transaction that has not ended (a prepared one, typically):
  // the INSERT would wait for it after the charge (model_name_holder.h).
  const TransactionId holder = model_name_holder(GetUserNameFromId(ids.caller, false), name);
  if (TransactionIdIsValid(holder))
    ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                    errmsg("a model named \"%s\" is being stored by another of your transactions", name),
                    errdetail("Transaction %u stored a model under this name (or renamed one to it) and has not "
                              "ended; it may be prepared (pg_prepared_xacts). This run would wait for it after its "
                              "charge; nothing was charged.",
                              holder),
                    errhint("End that transaction (a prepared one with COMMIT PREPARED or ROLLBACK PREPARED), "
                            "or choose another name.")));
}

// A model trained on an encoded view keeps the view's encoding, so raw rows
// can be scored later (docs/encoding.md); categories read from the data are
// outside the guarantee, and the model says so.
// A run on the columns themselves passes its encoding (`applied`), whose
// categories read from the data dp_encoding already announced.
void attach_encoding(ParsedModel* p, Oid relid, const RunIdentities& ids, const char* applied) {
  std::optional<std::string> encoding;
  if (applied != nullptr) {
    encoding = std::string(applied);
  } else {
    IdentitySwitch sw;
    switch_identity(&sw, ids.runner, false);
    encoding = registered_encoding(relid);
    restore_identity(&sw);
  }
  if (!encoding) return;
  const bool reads_data = encoding_reads_data(*encoding);
  if (reads_data && applied == nullptr)
    ereport(NOTICE, (errmsg("the encoding of this view read categories from the data"),
                     errdetail("Those category lists are outside the privacy guarantee."),
                     errhint("Declare them with categories => ... in dp_encoded_view.")));
  DPT_CORE({
    nlohmann::json details = nlohmann::json::parse(p->details);
    details["encoding"] = nlohmann::json::parse(*encoding);
    if (reads_data)
      details["warnings"].push_back("the encoding's categories were read from the data: they are outside the "
                                    "privacy guarantee");
    p->details = details.dump();
  });
}

// A private model stated under add/remove-one records the replace-one
// charge the ledger made for it, (epsilon, delta) (core/algorithms/ledger_charge.h).
void record_ledger_charge(ParsedModel* p, double epsilon, double delta) {
  const dptrain::Model& m = p->model;
  if (!m.epsilon) return;
  DPT_CORE({
    if (dptrain::make_algorithm(m.algorithm)->adjacency() == dptrain::privacy::Adjacency::ReplaceOne) return;
    nlohmann::json details = nlohmann::json::parse(p->details);
    details["privacy"]["charged"] = dptrain::ledger_charge_json({epsilon, delta, true});
    p->details = details.dump();
  });
}

int64 store_model_json(const char* model_json, const RunIdentities& ids, Oid relid, const char* source_name,
                       char** stored_details, const char* encoding) {
  ParsedModel* parsed = nullptr;
  DPT_CORE({
    auto p = std::make_unique<ParsedModel>();
    p->model = dptrain::Model::from_json(nlohmann::json::parse(model_json));
    p->weights.assign(p->model.weights.data(), p->model.weights.data() + p->model.weights.size());
    p->details = p->model.details.dump();
    const auto data = p->model.details.find("data");
    p->source = data != p->model.details.end() ? data->value("source", std::string("?")) : std::string("?");
    parsed = p.release();
  });
  delete_on_reset(CurrentMemoryContext, parsed);
  attach_encoding(parsed, relid, ids, encoding);
  // The NOTICE only for a run that would otherwise be private.
  const bool announce = parsed->model.epsilon.has_value() && !parsed->model.seeded;
  parsed->details = with_load_spec(parsed->details, relid, ids, announce);
  const dptrain::Model& m = parsed->model;
  const RunCharge run = make_run_charge(relid, source_name, m.algorithm, m.epsilon, m.delta, m.seeded);
  // dp_train's run was charged before it read a row; the controller's is charged below, run's amounts.
  if (ids.charge.model_id != 0)
    record_ledger_charge(parsed, ids.charge.epsilon, ids.charge.delta);
  else
    record_ledger_charge(parsed, run.epsilon, run.delta);
  if (stored_details != nullptr) *stored_details = pstrdup(parsed->details.c_str());
  const char* name = m.name.empty() ? nullptr : pstrdup(m.name.c_str());
  // A run that did not charge yet (the controller's store_model) is charged
  // now, before the model exists; a refusal stores nothing.
  Charge charge = ids.charge;
  if (charge.model_id == 0) check_model_name(name, ids);
  if (charge.model_id == 0 && is_private(run)) charge = ledger_reserve(ids, run);
  if (charge.model_id != 0) require_within_charge(charge, run);
  const int64 id = insert_model(*parsed, ids, relid, charge.model_id);
  if (charge.model_id == 0) ledger_log(ids, run, id);
  return id;
}

namespace {

constexpr const char* kModelColumns = "SELECT id, name, classes, weights, loss, details, algorithm FROM dptrain.models ";

// *out from the first row of SPI_tuptable (kModelColumns); `shown` names it in errors.
void fill_model(const char* shown, MemoryContext context, StoredModel* out) {
  HeapTuple tup = SPI_tuptable->vals[0];
  TupleDesc desc = SPI_tuptable->tupdesc;
  bool isnull;
  MemoryContext old = MemoryContextSwitchTo(context);
  out->id = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
  char* name = SPI_getvalue(tup, desc, 2);
  out->name = name ? pstrdup(name) : nullptr;
  ArrayType* classes = DatumGetArrayTypePCopy(SPI_getbinval(tup, desc, 3, &isnull));
  ArrayType* weights = DatumGetArrayTypePCopy(SPI_getbinval(tup, desc, 4, &isnull));
  char* loss = SPI_getvalue(tup, desc, 5);
  char* details = SPI_getvalue(tup, desc, 6);
  char* algorithm = SPI_getvalue(tup, desc, 7);
  Datum* class_items;
  deconstruct_array(classes, TEXTOID, -1, false, TYPALIGN_INT, &class_items, nullptr, &out->nclasses);
  out->classes = static_cast<char**>(palloc(sizeof(char*) * out->nclasses));
  for (int i = 0; i < out->nclasses; ++i) out->classes[i] = TextDatumGetCString(class_items[i]);
  const int ndim = ARR_NDIM(weights);
  const int K = ndim == 2 ? ARR_DIMS(weights)[0] : 1;
  const int d = ndim == 2 ? ARR_DIMS(weights)[1] : (ndim == 1 ? ARR_DIMS(weights)[0] : 0);
  if (ARR_ELEMTYPE(weights) != FLOAT8OID || (ARR_HASNULL(weights) && array_contains_nulls(weights)) || d == 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("model %s has malformed weights", shown),
                    errhint("The row of dptrain.models was edited outside dptrain; train the model again.")));
  const double* w = reinterpret_cast<const double*>(ARR_DATA_PTR(weights));
  std::vector<double>* packed = nullptr;
  std::string* encoding = nullptr;
  DPT_CORE({
    auto e = std::make_unique<std::string>();
    const auto parsed = nlohmann::json::parse(details);
    const auto found = parsed.find("encoding");
    if (found != parsed.end() && found->is_object()) *e = found->dump();
    encoding = e.release();
  });
  delete_on_reset(CurrentMemoryContext, encoding);
  out->encoding = encoding->empty() ? nullptr : pstrdup(encoding->c_str());
  DPT_CORE({
    dptrain::Model m;
    m.loss = dptrain::parse_loss(loss);
    const auto j = nlohmann::json::parse(details);
    const auto& h = j.at("hyperparameters");
    m.huber_h = h.value("huber_h", dptrain::kDefaultHuberH);
    m.feature_bound = h.value("feature_bound", 1.0);
    // With an intercept the last weight column is the bias weight (training/intercept.h).
    if (h.value("intercept", false)) m.intercept = h.at("intercept_feature").get<double>();
    m.weights = Eigen::Map<const dptrain::WeightMatrix>(w, K, d);
    // What the scoring reads of the rest: an OPDisc model's binarization
    // (Model::binarize_threshold: the recorded threshold, or the algorithm).
    m.algorithm = algorithm != nullptr ? algorithm : "";
    m.details = j;
    packed = new std::vector<double>(dptrain::packed_model::pack(m));
  });
  delete_on_reset(CurrentMemoryContext, packed);
  out->packed = make_float8_array(packed->data(), static_cast<int>(packed->size()));
  MemoryContextSwitchTo(old);
}


}  // namespace

namespace {

// (Not read-only: a model stored earlier in the same statement, e.g. by
// dp_train in FROM, must be visible.)
void read_model_by_id(int64 id, MemoryContext context, StoredModel* out) {
  Oid types[1] = {INT8OID};
  Datum values[1] = {Int64GetDatum(id)};
  if (SPI_execute_with_args(psprintf("%sWHERE id = $1", kModelColumns), 1, types, values, nullptr, false, 1) !=
      SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.models");
  if (SPI_processed == 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("model %lld does not exist", (long long) id),
                    errhint("See SELECT id, name FROM dptrain.models.")));
  fill_model(psprintf("%lld", (long long) id), context, out);
}

void read_model(const char* reference, MemoryContext context, StoredModel* out) {
  int64 id;
  if (looks_like_id(reference, &id)) return read_model_by_id(id, context, out);
  Oid types[1] = {TEXTOID};
  Datum values[1] = {CStringGetTextDatum(reference)};
  if (SPI_execute_with_args(psprintf("%sWHERE name = $1 AND created_by = current_user", kModelColumns), 1, types,
                            values, nullptr, false, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.models");
  if (SPI_processed == 1) return fill_model(quote_literal_cstr(reference), context, out);
  // Models of other roles with that name, among those the caller may see anyway.
  if (SPI_execute_with_args("SELECT string_agg(id::text || ' (' || created_by || ')', ', ' ORDER BY id) "
                            "FROM dptrain.models WHERE name = $1",
                            1, types, values, nullptr, false, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.models");
  const char* others = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
  ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("model \"%s\" does not exist", reference),
                  others ? errdetail("You have no model of that name; other roles' models named so: %s.", others) : 0,
                  errhint(others ? "A name refers to your own models only; refer to another role's model by its id."
                                 : "See SELECT id, name FROM dptrain.models.")));
}

}  // namespace

// The models' policies applied whatever the caller's row_security
// (access.h, pin_row_security).
void load_model_by_id(int64 id, MemoryContext context, StoredModel* out) {
  const int pinned = pin_row_security();
  read_model_by_id(id, context, out);
  unpin_search_path(pinned);
}

void load_model(const char* reference, MemoryContext context, StoredModel* out) {
  const int pinned = pin_row_security();
  read_model(reference, context, out);
  unpin_search_path(pinned);
}

ModelRead model_read_now() {
  ModelRead r;
  r.user = GetUserId();
  if (!ActiveSnapshotSet()) return r;
  const Snapshot s = GetActiveSnapshot();
  r.snapshot = true;
  r.xmax = s->xmax;
  r.xcnt = s->xcnt;
  r.curcid = s->curcid;
  return r;
}

bool same_model_read(const ModelRead& then, const ModelRead& now) {
  return then.snapshot && now.snapshot && then.user == now.user && then.xmax == now.xmax && then.xcnt == now.xcnt &&
         then.curcid == now.curcid;
}

namespace {
// Per backend: the controller prepares and stores on one connection.
Oid prepared_source = InvalidOid;
}  // namespace

void remember_prepared_source(Oid relid) { prepared_source = relid; }

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_store_model);

// dptrain.store_model(model jsonb) -> bigint: used by `dptrain train` in
// controller mode. The model is charged to the caller's budget on the
// relation its details name (details.data.source); the caller must be able
// to read that relation -- controller mode reads the data itself, and a role
// that may not read it trains with dp_train instead.
Datum dptrain_store_model(PG_FUNCTION_ARGS) {
  // It charges, then inserts the model: refused before the charge if it could not insert.
  dptrain::pg::require_writable_transaction("dptrain.store_model");
  const char* json = DatumGetCString(DirectFunctionCall1(jsonb_out, PG_GETARG_DATUM(0)));
  Jsonb* model = PG_GETARG_JSONB_P(0);
  const char* source = nullptr;
  {
    // details -> data -> source, as text (NULL if absent or not a string).
    Datum path_items[3] = {CStringGetTextDatum("details"), CStringGetTextDatum("data"), CStringGetTextDatum("source")};
    ArrayType* path = construct_array(path_items, 3, TEXTOID, -1, false, TYPALIGN_INT);
    LOCAL_FCINFO(call, 2);
    InitFunctionCallInfoData(*call, nullptr, 2, InvalidOid, nullptr, nullptr);
    call->args[0].value = PointerGetDatum(model);
    call->args[0].isnull = false;
    call->args[1].value = PointerGetDatum(path);
    call->args[1].isnull = false;
    const Datum value = jsonb_extract_path_text(call);
    if (!call->isnull) source = TextDatumGetCString(value);
  }
  if (source == nullptr)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("the model does not name its source table"),
                    errdetail("details.data.source is missing."),
                    errhint("Store models produced by the dptrain controller (dptrain train).")));
  const Oid relid = DatumGetObjectId(DirectFunctionCall1(regclassin, CStringGetDatum(source)));
  if (OidIsValid(dptrain::pg::prepared_source) && relid != dptrain::pg::prepared_source)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("the model's source %s is not the relation this session prepared", source),
                    errdetail("The name resolved to relation %u when the run was prepared and to %u now.",
                              dptrain::pg::prepared_source, relid),
                    errhint("Was a schema renamed during the call? Train again.")));
  dptrain::pg::RunIdentities ids;
  ids.caller = ids.reader = GetUserId();
  ids.runner = dptrain::pg::function_owner(fcinfo);
  ids.caller_reads = true;
  if (!dptrain::pg::can_read_any_column(relid, ids.caller))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("permission denied to store a model of %s", source),
                    errdetail("dptrain.store_model is the controller's path, which reads the data itself."),
                    errhint("Without read access, train with dp_train (dptrain train --server).")));
  SPI_connect();
  const int64 id = dptrain::pg::store_model_json(json, ids, relid, source);
  SPI_finish();
  PG_RETURN_INT64(id);
}

}  // extern "C"
