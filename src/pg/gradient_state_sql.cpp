// SQL helpers to run gradient/loss passes by hand (tests, EXPLAIN, benchmarks):
//   dptrain.gradient_request(points, ...)   a request at one point (d or K x d)
//   dptrain.gradient_result(state)          its row count, loss sums and gradient sums
// They only build or read states a caller already has; the aggregate that
// turns data into sums (dptrain.gradient_sum) stays restricted.
#include <vector>

#include "core/engine/gradient_state.h"
#include "pg_glue.h"

namespace gs = dptrain::gradient_state;

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_gradient_request);
PG_FUNCTION_INFO_V1(dptrain_gradient_result);

// gradient_request(points float8[] (d, or K x d), loss text, huber_h float8,
//                  feature_bound float8, hessian boolean)
Datum dptrain_gradient_request(PG_FUNCTION_ARGS) {
  for (int i = 0; i < 5; ++i)
    if (PG_ARGISNULL(i)) ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("arguments must not be NULL"),
                    errhint("Pass points, loss, huber_h, feature_bound and hessian.")));
  ArrayType* a = PG_GETARG_ARRAYTYPE_P(0);
  if (ARR_ELEMTYPE(a) != FLOAT8OID || ARR_NDIM(a) < 1 || ARR_NDIM(a) > 2 || (ARR_HASNULL(a) && array_contains_nulls(a)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("points must be a float8[] (d) or float8[][] (K x d) without NULLs"),
                    errhint("Pass one model as float8[] of d values, or K models as float8[][] of K rows of d values.")));
  const int K = ARR_NDIM(a) == 2 ? ARR_DIMS(a)[0] : 1;
  const int d = ARR_DIMS(a)[ARR_NDIM(a) - 1];
  const double* w = reinterpret_cast<const double*>(ARR_DATA_PTR(a));
  const char* loss = text_to_cstring(PG_GETARG_TEXT_PP(1));
  const double h = PG_GETARG_FLOAT8(2), bound = PG_GETARG_FLOAT8(3);
  const bool hessian = PG_GETARG_BOOL(4);
  std::vector<double>* state = nullptr;
  DPT_CORE({
    gs::Request r;
    r.dim = d;
    r.models = K;
    r.loss = dptrain::parse_loss(loss);
    r.huber_h = h;
    r.feature_bound = bound;
    r.want = gs::kLossSums | gs::kGradient | (hessian ? gs::kHessian : 0);
    state = new std::vector<double>(gs::make_state(r, w));
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, state);
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(state->data(), static_cast<int>(state->size())));
}

// gradient_result(state) -> (rows bigint, loss float8[] (K), gradient float8[] (K x d or d)) at point 0
Datum dptrain_gradient_result(PG_FUNCTION_ARGS) {
  TupleDesc tupdesc;
  if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "dptrain.gradient_result must return a row");
  tupdesc = BlessTupleDesc(tupdesc);
  int len = 0;
  const double* s = dptrain::pg::float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &len, "gradient state");
  std::vector<double>* sums = nullptr;
  DPT_CORE({
    gs::validate(s, static_cast<std::size_t>(len));
    if (!(gs::request_of(s).want & gs::kGradient))
      dptrain::fail(dptrain::ErrorKind::InvalidParameter, "the state holds no gradient sums");
    auto out = std::make_unique<std::vector<double>>();
    for (int k = 0; k < gs::models(s); ++k) out->push_back(gs::loss_sum(s, 0, k));
    for (int k = 0; k < gs::models(s); ++k) {
      const std::vector<double> g = gs::gradient_sum(s, 0, k);
      out->insert(out->end(), g.begin(), g.end());
    }
    sums = out.release();
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, sums);
  const int K = gs::models(s), d = gs::dim(s);
  Datum values[3] = {Int64GetDatum(gs::rows(s)), PointerGetDatum(dptrain::pg::make_float8_array(sums->data(), K)),
                     PointerGetDatum(K == 1 ? dptrain::pg::make_float8_array(sums->data() + K, d)
                                            : dptrain::pg::make_float8_matrix(sums->data() + K, K, d))};
  bool nulls[3] = {false, false, false};
  PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

}  // extern "C"
