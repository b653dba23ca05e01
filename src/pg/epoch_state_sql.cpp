// SQL helpers to run Bismarck epochs by hand (and to test the aggregate):
//   dptrain.sgd_state(...)          an initial state (constant step size)
//   dptrain.sgd_state_weights(s)    the model in a state: d or K x d
//   dptrain.sgd_state_info(s)       its counters and configuration as jsonb
// They only build or read states a caller already has; the aggregate that
// turns data into a state stays restricted.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/sgd/epoch_state.h"
#include "pg_glue.h"

namespace es = dptrain::epoch_state;

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sgd_state);
PG_FUNCTION_INFO_V1(dptrain_sgd_state_weights);
PG_FUNCTION_INFO_V1(dptrain_sgd_state_info);

// sgd_state(dim, batch_size, learning_rate, lambda, loss, models, radius, weights)
Datum dptrain_sgd_state(PG_FUNCTION_ARGS) {
  for (int i = 0; i < 7; ++i)
    if (PG_ARGISNULL(i))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("only the weights may be NULL"),
                    errhint("Pass dim, batch_size, learning_rate, lambda, loss, models and radius; NULL weights start from zero.")));
  const int dim = PG_GETARG_INT32(0);
  const int batch = PG_GETARG_INT32(1);
  const double eta = PG_GETARG_FLOAT8(2);
  const double lambda = PG_GETARG_FLOAT8(3);
  const char* loss = text_to_cstring(PG_GETARG_TEXT_PP(4));
  const int models = PG_GETARG_INT32(5);
  const double radius = PG_GETARG_FLOAT8(6);
  const double* w = nullptr;
  int wlen = 0;
  if (!PG_ARGISNULL(7)) {
    ArrayType* a = PG_GETARG_ARRAYTYPE_P(7);
    if (ARR_ELEMTYPE(a) != FLOAT8OID || (ARR_HASNULL(a) && array_contains_nulls(a)))
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("weights must be float8[] without NULLs"),
                    errhint("Pass the weights as float8[], or NULL to start from zero.")));
    wlen = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
    w = reinterpret_cast<const double*>(ARR_DATA_PTR(a));
    if (wlen != static_cast<int64>(dim) * models)
      ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("weights must have models * dim elements"),
                    errhint("Pass models * dim weights (the models one after another), or NULL to start from zero.")));
  }
  std::vector<double>* state = nullptr;
  DPT_CORE({
    if (eta <= 0 || !std::isfinite(eta))
      dptrain::fail(dptrain::ErrorKind::InvalidParameter, "learning_rate must be positive");
    if (batch < 1) dptrain::fail(dptrain::ErrorKind::InvalidParameter, "batch_size must be at least 1");
    es::EpochConfig c;
    c.dim = dim;
    c.models = models;
    c.loss = dptrain::parse_loss(loss);
    c.lambda = lambda;
    c.radius = radius;
    c.batch_size = batch;
    c.schedule.kind = dptrain::ScheduleKind::Constant;
    c.schedule.eta = eta;
    state = new std::vector<double>(es::make_state(c, w, 0));
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, state);
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(state->data(), static_cast<int>(state->size())));
}

Datum dptrain_sgd_state_weights(PG_FUNCTION_ARGS) {
  int len = 0;
  const double* s = dptrain::pg::float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &len, "training state");
  DPT_CORE({ es::validate(s, static_cast<std::size_t>(len)); });
  const int d = es::dim(s), K = es::models(s);
  const double* w = es::averaging(s) ? es::average(s) : es::weights(s);
  PG_RETURN_ARRAYTYPE_P(K == 1 ? dptrain::pg::make_float8_array(w, d) : dptrain::pg::make_float8_matrix(w, K, d));
}

Datum dptrain_sgd_state_info(PG_FUNCTION_ARGS) {
  int len = 0;
  const double* s = dptrain::pg::float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &len, "training state");
  std::string* json = nullptr;
  DPT_CORE({
    es::validate(s, static_cast<std::size_t>(len));
    const es::EpochConfig c = es::config_of(s);
    nlohmann::json j = {{"dim", c.dim},
                        {"models", c.models},
                        {"loss", dptrain::loss_name(c.loss)},
                        {"lambda", c.lambda},
                        {"radius", c.radius},
                        {"batch_size", c.batch_size},
                        {"schedule", dptrain::schedule_name(c.schedule.kind)},
                        {"rows", es::rows(s)},
                        {"updates", es::updates(s)},
                        {"pending", static_cast<std::int64_t>(s[es::kPending])},
                        {"averaging", c.averaging}};
    // White-box noise and sampling; the key is never shown.
    if (c.noise != dptrain::privacy::BatchNoiseKind::None)
      j["noise"] = {{"kind", dptrain::privacy::batch_noise_name(c.noise)},
                    {"scale", c.noise_scale},
                    {"seeded", c.noise_seeded}};
    if (c.sampled_batches) j["sampled_batch"] = static_cast<std::int64_t>(s[es::kSampledBatch]);
    json = new std::string(j.dump());
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, json);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json->c_str())));
}

}  // extern "C"
