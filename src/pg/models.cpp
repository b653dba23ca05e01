#include "models.h"

#include <string>
#include <vector>

#include "core/model.h"
#include "core/packed_model.h"

namespace dptrain::pg {
namespace {

// What store_model_json needs from the JSON, parsed by the core.
struct ParsedModel {
  dptrain::Model model;
  std::vector<double> weights;  // row-major K x d
  std::string details;          // jsonb text
  std::string source;
};

}  // namespace

int64 store_model_json(const char* model_json) {
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
  const dptrain::Model& m = parsed->model;
  const int K = static_cast<int>(m.weights.rows()), d = static_cast<int>(m.weights.cols());
  ArrayType* weights = K == 1 ? make_float8_array(parsed->weights.data(), d)
                              : make_float8_matrix(parsed->weights.data(), K, d);

  Oid types[9] = {TEXTOID, TEXTOID, TEXTOID, FLOAT8OID, FLOAT8OID, TEXTOID, TEXTARRAYOID, FLOAT8ARRAYOID, JSONBOID};
  Datum values[9];
  char nulls[9] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
  if (m.name.empty()) nulls[0] = 'n';
  else values[0] = CStringGetTextDatum(m.name.c_str());
  values[1] = CStringGetTextDatum(m.algorithm.c_str());
  values[2] = CStringGetTextDatum(dptrain::loss_name(m.loss).c_str());
  if (m.epsilon) values[3] = Float8GetDatum(*m.epsilon);
  else nulls[3] = 'n';
  if (m.delta) values[4] = Float8GetDatum(*m.delta);
  else nulls[4] = 'n';
  values[5] = CStringGetTextDatum(parsed->source.c_str());
  values[6] = PointerGetDatum(make_text_array(m.classes.data(), static_cast<int>(m.classes.size())));
  values[7] = PointerGetDatum(weights);
  values[8] = DirectFunctionCall1(jsonb_in, CStringGetDatum(parsed->details.c_str()));
  const bool seeded = m.seeded;
  const char* sql = seeded
      ? "INSERT INTO dptrain.models (name, algorithm, loss, epsilon, delta, source, classes, weights, seeded, details) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9) RETURNING id"
      : "INSERT INTO dptrain.models (name, algorithm, loss, epsilon, delta, source, classes, weights, seeded, details) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, false, $9) RETURNING id";
  if (SPI_execute_with_args(sql, 9, types, values, nulls, false, 0) != SPI_OK_INSERT_RETURNING)
    elog(ERROR, "dptrain: could not store the model");
  bool isnull;
  return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

void load_model(const char* reference, MemoryContext context, StoredModel* out) {
  Oid types[1] = {TEXTOID};
  Datum values[1] = {CStringGetTextDatum(reference)};
  const char* sql =
      "SELECT id, name, classes, weights, loss, details FROM dptrain.models "
      "WHERE name = $1 OR (name IS DISTINCT FROM $1 AND $1 ~ '^[0-9]{1,18}$' AND id = $1::bigint "
      "AND NOT EXISTS (SELECT 1 FROM dptrain.models WHERE name = $1)) LIMIT 1";
  if (SPI_execute_with_args(sql, 1, types, values, nullptr, true, 1) != SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.models");
  if (SPI_processed == 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("model \"%s\" does not exist", reference),
                    errhint("See SELECT id, name FROM dptrain.models.")));
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
  Datum* class_items;
  deconstruct_array(classes, TEXTOID, -1, false, TYPALIGN_INT, &class_items, nullptr, &out->nclasses);
  out->classes = static_cast<char**>(palloc(sizeof(char*) * out->nclasses));
  for (int i = 0; i < out->nclasses; ++i) out->classes[i] = TextDatumGetCString(class_items[i]);
  const int ndim = ARR_NDIM(weights);
  const int K = ndim == 2 ? ARR_DIMS(weights)[0] : 1;
  const int d = ndim == 2 ? ARR_DIMS(weights)[1] : (ndim == 1 ? ARR_DIMS(weights)[0] : 0);
  if (ARR_ELEMTYPE(weights) != FLOAT8OID || (ARR_HASNULL(weights) && array_contains_nulls(weights)) || d == 0)
    ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("model \"%s\" has malformed weights", reference)));
  const double* w = reinterpret_cast<const double*>(ARR_DATA_PTR(weights));
  std::vector<double>* packed = nullptr;
  DPT_CORE({
    dptrain::Model m;
    m.loss = dptrain::parse_loss(loss);
    const auto j = nlohmann::json::parse(details);
    const auto& h = j.at("hyperparameters");
    m.huber_h = h.value("huber_h", dptrain::kDefaultHuberH);
    m.feature_bound = h.value("feature_bound", 1.0);
    m.weights = Eigen::Map<const dptrain::WeightMatrix>(w, K, d);
    packed = new std::vector<double>(dptrain::packed_model::pack(m));
  });
  delete_on_reset(CurrentMemoryContext, packed);
  out->packed = make_float8_array(packed->data(), static_cast<int>(packed->size()));
  MemoryContextSwitchTo(old);
}

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_store_model);

// dptrain.store_model(model jsonb) -> bigint: used by `dptrain train`.
Datum dptrain_store_model(PG_FUNCTION_ARGS) {
  const char* json = DatumGetCString(DirectFunctionCall1(jsonb_out, PG_GETARG_DATUM(0)));
  SPI_connect();
  const int64 id = dptrain::pg::store_model_json(json);
  SPI_finish();
  PG_RETURN_INT64(id);
}

}  // extern "C"
