// fmgr entry points of the gradient/loss aggregate dptrain.gradient_sum (the
// engine's GradientLoss pass): transition = add one row's loss and gradient
// at every requested point, combine = exact (compensated) sum, no final
// function (the state is the result). The mathematics is in
// src/core/engine/gradient_state.*; this file only moves arrays around.
#include <cstring>
#include <vector>

#include "core/engine/gradient_state.h"
#include "feature_array_checks.h"
#include "pg_glue.h"
#include "sparsevec.h"

namespace gs = dptrain::gradient_state;
using dptrain::pg::float8_array_data;
using dptrain::pg::require_aggregate;
using dptrain::pg::state_data;

namespace {

// The state this call site made or validated last, and its header: a state
// that is not that array, or whose header changed, is validated in full.
struct CallSite {
  ArrayType* state;
  int len;
  double header[gs::kHeaderSize];
};

CallSite* call_site(FunctionCallInfo fcinfo) {
  bool created;
  return static_cast<CallSite*>(dptrain::pg::transition_call_site(fcinfo, sizeof(CallSite), &created));
}

void remember(FunctionCallInfo fcinfo, ArrayType* state, const double* data, int len) {
  CallSite* site = call_site(fcinfo);
  site->state = state;
  site->len = len;
  memcpy(site->header, data, sizeof(site->header));
}

bool same_header(const CallSite* site, const double* data, int len) {
  if (len != site->len || len < gs::kHeaderSize) return false;
  for (int f = 0; f < gs::kHeaderSize; ++f)
    if (f != gs::kRows && data[f] != site->header[f]) return false;
  return true;
}

ArrayType* validated_copy(MemoryContext context, ArrayType* src, const char* what) {
  int len = 0;
  const double* data = float8_array_data(src, &len, what);
  DPT_CORE({ gs::validate(data, static_cast<std::size_t>(len)); });
  MemoryContext old = MemoryContextSwitchTo(context);
  ArrayType* copy = dptrain::pg::make_float8_array(data, len);
  MemoryContextSwitchTo(old);
  return copy;
}

// The first row's state: the request's zero-sum state (a request_only array,
// as the passes over a Citus table send it, or a whole state).
ArrayType* state_of_request(MemoryContext context, ArrayType* src) {
  int len = 0;
  const double* data = float8_array_data(src, &len, "gradient request");
  std::vector<double>* state = nullptr;
  DPT_CORE({ state = new std::vector<double>(gs::state_from_request(data, static_cast<std::size_t>(len))); });
  MemoryContext old = MemoryContextSwitchTo(context);
  ArrayType* copy = dptrain::pg::make_float8_array(state->data(), static_cast<int>(state->size()));
  MemoryContextSwitchTo(old);
  delete state;
  return copy;
}

ArrayType* trusted_state(FunctionCallInfo fcinfo) {
  ArrayType* state = PG_GETARG_ARRAYTYPE_P(0);
  int len = 0;
  const double* data = float8_array_data(state, &len, "gradient state");
  const CallSite* site = call_site(fcinfo);
  if (site->state == state && same_header(site, data, len)) return state;
  DPT_CORE({ gs::validate(data, static_cast<std::size_t>(len)); });
  remember(fcinfo, state, data, len);
  return state;
}


// The transition's state (args: state, x, y, request): the request copied on
// the first row, else the trusted state; x and y checked for NULL. Shared by
// the dense and the sparse transition.
ArrayType* transition_state(FunctionCallInfo fcinfo) {
  MemoryContext aggcontext = require_aggregate(fcinfo, "dptrain.gradient_transition", "dptrain.gradient_sum");
  ArrayType* state;
  if (PG_ARGISNULL(0)) {
    if (PG_ARGISNULL(3))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("the gradient request must not be NULL"),
                      errhint("Pass a request built by dptrain.gradient_request(...).")));
    state = state_of_request(aggcontext, PG_GETARG_ARRAYTYPE_P(3));
    std::size_t len;
    remember(fcinfo, state, state_data(state, &len), ARR_DIMS(state)[0]);
  } else {
    state = trusted_state(fcinfo);
  }
  if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("features and label must not be NULL"),
                    errhint("Remove or repair rows with NULL features or labels.")));
  return state;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_gradient_transition);
PG_FUNCTION_INFO_V1(dptrain_gradient_combine);
PG_FUNCTION_INFO_V1(dptrain_gradient_sparse_transition);

// gradient_transition(state float8[], x dptrain.sparsevec, y float8, request float8[]):
// the same sums for a sparse row (gradient_state::add_sparse_row, docs/sparse.md).
Datum dptrain_gradient_sparse_transition(PG_FUNCTION_ARGS) {
  ArrayType* state = transition_state(fcinfo);
  dptrain::pg::SparseVec* x = dptrain::pg::sparsevec_arg(fcinfo, 1);
  const double label = PG_GETARG_FLOAT8(2);
  std::size_t slen;
  double* s = state_data(state, &slen);
  DPT_CORE({ gs::add_sparse_row(s, dptrain::pg::sparsevec_view(x), label); });
  PG_RETURN_ARRAYTYPE_P(state);
}

// gradient_transition(state float8[], x float8[] | real[], y float8, request float8[])
Datum dptrain_gradient_transition(PG_FUNCTION_ARGS) {
  ArrayType* state = transition_state(fcinfo);
  ArrayType* x = PG_GETARG_ARRAYTYPE_P(1);
  dptrain::pg::require_feature_array(x);
  const Oid elem = ARR_ELEMTYPE(x);
  const int len = ARR_NDIM(x) == 0 ? 0 : ARR_DIMS(x)[0];
  const double label = PG_GETARG_FLOAT8(2);
  std::size_t slen;
  double* s = state_data(state, &slen);
  if (elem == FLOAT8OID) {
    const double* xd = reinterpret_cast<const double*>(ARR_DATA_PTR(x));
    DPT_CORE({ gs::add_row(s, xd, len, label); });
  } else {
    const float* xf = reinterpret_cast<const float*>(ARR_DATA_PTR(x));
    DPT_CORE({ gs::add_row(s, xf, len, label); });
  }
  PG_RETURN_ARRAYTYPE_P(state);
}

// Exact sum of two partial states (parallel workers, distributed shards).
// NULL = no rows = identity.
Datum dptrain_gradient_combine(PG_FUNCTION_ARGS) {
  MemoryContext aggcontext = require_aggregate(fcinfo, "dptrain.gradient_combine", "dptrain.gradient_sum");
  if (PG_ARGISNULL(1)) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
  }
  if (PG_ARGISNULL(0)) PG_RETURN_ARRAYTYPE_P(validated_copy(aggcontext, PG_GETARG_ARRAYTYPE_P(1), "gradient state"));
  ArrayType* other = PG_GETARG_ARRAYTYPE_P(1);
  int other_len = 0;
  const double* b = float8_array_data(other, &other_len, "gradient state");
  DPT_CORE({ gs::validate(b, static_cast<std::size_t>(other_len)); });
  ArrayType* state = trusted_state(fcinfo);
  std::size_t a_len;
  double* a = state_data(state, &a_len);
  DPT_CORE({ gs::combine(a, a_len, b, static_cast<std::size_t>(other_len)); });
  PG_RETURN_ARRAYTYPE_P(state);
}

}  // extern "C"
