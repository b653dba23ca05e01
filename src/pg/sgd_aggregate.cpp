// fmgr entry points of the Bismarck epoch aggregate dptrain.sgd_epoch
// (transition = one SGD step per tuple / mini-batch, combine = count-weighted
// model averaging, final = flush the last partial batch). The mathematics is
// in src/core/sgd/epoch_state.*; this file only moves arrays around.
#include <cstring>

#include "core/sgd/epoch_state.h"
#include "feature_array_checks.h"
#include "pg_glue.h"
#include "sparsevec.h"

namespace es = dptrain::epoch_state;
using dptrain::pg::float8_array_data;
using dptrain::pg::require_aggregate;
using dptrain::pg::state_data;

namespace {

// A copy of `src` (validated) allocated in `context`.
ArrayType* copy_state_into(MemoryContext context, ArrayType* src, const char* what) {
  int len = 0;
  const double* data = float8_array_data(src, &len, what);
  DPT_CORE({ es::validate(data, static_cast<std::size_t>(len)); });
  MemoryContext old = MemoryContextSwitchTo(context);
  ArrayType* copy = dptrain::pg::make_float8_array(data, len);
  MemoryContextSwitchTo(old);
  return copy;
}



// Per-call-site cache in fn_extra: the state this call site created or
// validated last (with its layout), and whether the label argument is
// boolean (looked up once, not per row).
struct CallSite {
  ArrayType* state;
  es::LayoutKey key;
  bool label_is_bool;
};

// The label's type from the called function's declared signature: fn_oid is
// always set, fn_expr is not when Citus's worker_partial_agg runs the
// transition function on a shard (a boolean would then be read as a float8).
bool declared_label_is_bool(FunctionCallInfo fcinfo) {
  Oid* types = nullptr;
  int nargs = 0;
  get_func_signature(fcinfo->flinfo->fn_oid, &types, &nargs);
  const bool is_bool = nargs > 2 && types[2] == BOOLOID;
  pfree(types);
  return is_bool;
}

CallSite* call_site(FunctionCallInfo fcinfo) {
  bool created;
  auto* site = static_cast<CallSite*>(dptrain::pg::transition_call_site(fcinfo, sizeof(CallSite), &created));
  if (created) site->label_is_bool = declared_label_is_bool(fcinfo);
  return site;
}

void remember_state(FunctionCallInfo fcinfo, ArrayType* state, const double* data, int len) {
  CallSite* site = call_site(fcinfo);
  site->state = state;
  site->key = es::layout_key(data, static_cast<std::size_t>(len));
}

// The state argument, checked on every call: in full (O(length): every
// value finite and in range) unless it is the state this call site created
// or validated last, and then still its layout (O(1): es::same_layout), so
// that a different array allocated at the same address cannot pass. A state
// from elsewhere (a hand-written aggregate's INITCOND, a partial state from
// a worker) is never trusted.
ArrayType* trusted_state(FunctionCallInfo fcinfo) {
  ArrayType* state = PG_GETARG_ARRAYTYPE_P(0);
  int len = 0;
  const double* data = float8_array_data(state, &len, "training state");
  const CallSite* site = call_site(fcinfo);
  if (site->state == state && es::same_layout(data, static_cast<std::size_t>(len), site->key)) return state;
  DPT_CORE({ es::validate(data, static_cast<std::size_t>(len)); });
  remember_state(fcinfo, state, data, len);
  return state;
}

// The state of sgd_transition (args: state, x, y, init): the initial state
// copied on the first row, else the trusted state; x and y checked for NULL.
// Shared by the dense and the sparse transition.
ArrayType* transition_state(FunctionCallInfo fcinfo) {
  MemoryContext aggcontext = require_aggregate(fcinfo, "dptrain.sgd_transition", "dptrain.sgd_epoch");
  ArrayType* state;
  if (PG_ARGISNULL(0)) {
    if (PG_ARGISNULL(3))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("initial training state must not be NULL"),
                      errhint("The controller (dp_train or dptrain train) passes the initial state.")));
    state = copy_state_into(aggcontext, PG_GETARG_ARRAYTYPE_P(3), "initial training state");
    std::size_t len;
    const double* data = state_data(state, &len);
    remember_state(fcinfo, state, data, static_cast<int>(len));
  } else {
    state = trusted_state(fcinfo);
  }
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("feature array must not be NULL"),
                    errhint("Remove or repair rows with NULL features before training.")));
  if (PG_ARGISNULL(2))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("label must not be NULL"),
                    errhint("Remove rows with NULL labels before training.")));
  return state;
}

// The label argument as the epoch state takes it (a boolean is -1 / +1).
double row_label(FunctionCallInfo fcinfo) {
  return call_site(fcinfo)->label_is_bool ? (PG_GETARG_BOOL(2) ? 1.0 : -1.0) : PG_GETARG_FLOAT8(2);
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sgd_transition);
PG_FUNCTION_INFO_V1(dptrain_sgd_combine);
PG_FUNCTION_INFO_V1(dptrain_sgd_final);
PG_FUNCTION_INFO_V1(dptrain_sgd_sampled_transition);
PG_FUNCTION_INFO_V1(dptrain_sgd_sparse_transition);

// sgd_transition(state float8[], x float8[] | real[], y float8 | boolean, init float8[])
Datum dptrain_sgd_transition(PG_FUNCTION_ARGS) {
  ArrayType* state = transition_state(fcinfo);

  ArrayType* x = PG_GETARG_ARRAYTYPE_P(1);
  dptrain::pg::require_feature_array(x);
  const Oid elem = ARR_ELEMTYPE(x);
  const int len = ARR_NDIM(x) == 0 ? 0 : ARR_DIMS(x)[0];

  const double label = row_label(fcinfo);

  std::size_t slen;
  double* s = state_data(state, &slen);
  if (elem == FLOAT8OID) {
    const double* xd = reinterpret_cast<const double*>(ARR_DATA_PTR(x));
    DPT_CORE({ es::add_row(s, xd, len, label); });
  } else {
    const float* xf = reinterpret_cast<const float*>(ARR_DATA_PTR(x));
    DPT_CORE({ es::add_row(s, xf, len, label); });
  }
  PG_RETURN_ARRAYTYPE_P(state);
}

// sgd_transition(state float8[], x dptrain.sparsevec, y float8 | boolean, init float8[]):
// the same step on a sparse row (epoch_state::add_sparse_row, docs/sparse.md).
Datum dptrain_sgd_sparse_transition(PG_FUNCTION_ARGS) {
  ArrayType* state = transition_state(fcinfo);
  dptrain::pg::SparseVec* x = dptrain::pg::sparsevec_arg(fcinfo, 1);
  const double label = row_label(fcinfo);
  std::size_t slen;
  double* s = state_data(state, &slen);
  DPT_CORE({ es::add_sparse_row(s, dptrain::pg::sparsevec_view(x), label); });
  PG_RETURN_ARRAYTYPE_P(state);
}

// sgd_sampled_transition(state float8[], x float8[], y float8, batch int8, init float8[]):
// one row of sampled batch `batch` (BST14). The rows come from the prepared
// temp table (float8[] features, class index labels).
Datum dptrain_sgd_sampled_transition(PG_FUNCTION_ARGS) {
  MemoryContext aggcontext = require_aggregate(fcinfo, "dptrain.sgd_sampled_transition", "dptrain.sgd_epoch");
  ArrayType* state;
  if (PG_ARGISNULL(0)) {
    if (PG_ARGISNULL(4))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("initial training state must not be NULL"),
                    errhint("Build the state with dptrain.sgd_state(...).")));
    state = copy_state_into(aggcontext, PG_GETARG_ARRAYTYPE_P(4), "initial training state");
    std::size_t len;
    const double* data = state_data(state, &len);
    remember_state(fcinfo, state, data, static_cast<int>(len));
  } else {
    state = trusted_state(fcinfo);
  }
  if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("features, label and batch must not be NULL"),
                    errhint("Filter rows with dptrain.usable_row(...) first, as dp_train does.")));
  ArrayType* x = PG_GETARG_ARRAYTYPE_P(1);
  if (ARR_NDIM(x) != 1 || (ARR_HASNULL(x) && array_contains_nulls(x)))
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("feature array must be one-dimensional without NULLs"),
                    errhint("Filter rows with dptrain.usable_row(...) first, as dp_train does.")));
  const int len = ARR_DIMS(x)[0];
  const double* xd = reinterpret_cast<const double*>(ARR_DATA_PTR(x));
  const double label = PG_GETARG_FLOAT8(2);
  const int64 batch = PG_GETARG_INT64(3);
  std::size_t slen;
  double* s = state_data(state, &slen);
  DPT_CORE({ es::add_sampled_row(s, xd, len, label, batch); });
  PG_RETURN_ARRAYTYPE_P(state);
}

// Count-weighted model averaging of two partial states (parallel workers,
// distributed shards). NULL = no rows = identity.
Datum dptrain_sgd_combine(PG_FUNCTION_ARGS) {
  MemoryContext aggcontext = require_aggregate(fcinfo, "dptrain.sgd_combine", "dptrain.sgd_epoch");
  if (PG_ARGISNULL(1)) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
  }
  ArrayType* other = copy_state_into(CurrentMemoryContext, PG_GETARG_ARRAYTYPE_P(1), "training state");
  if (PG_ARGISNULL(0)) {
    ArrayType* copy = copy_state_into(aggcontext, other, "training state");
    PG_RETURN_ARRAYTYPE_P(copy);
  }
  ArrayType* state = trusted_state(fcinfo);
  std::size_t a_len, b_len;
  double* a = state_data(state, &a_len);
  const double* b = state_data(other, &b_len);
  DPT_CORE({ es::combine(a, a_len, b, b_len); });
  PG_RETURN_ARRAYTYPE_P(state);
}

// Applies the pending partial mini-batch and returns the whole state; the
// controller reads the model from it. NULL if the table was empty.
Datum dptrain_sgd_final(PG_FUNCTION_ARGS) {
  require_aggregate(fcinfo, "dptrain.sgd_final", "dptrain.sgd_epoch");
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  // Validated in full, never from the call-site cache: once per group, and
  // in a role's own aggregate (the function is PUBLIC) the state may come
  // from the role's own transition function, and a crafted state of the
  // next group can sit at the address of the last validated one (the
  // group's memory is reset) with the same layout (bad_input_states.sql).
  ArrayType* state = PG_GETARG_ARRAYTYPE_P(0);
  int state_len = 0;
  const double* data = float8_array_data(state, &state_len, "training state");
  DPT_CORE({ es::validate(data, static_cast<std::size_t>(state_len)); });
  std::size_t len;
  double* s = state_data(state, &len);
  DPT_CORE({ es::flush(s); });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(s, static_cast<int>(len)));
}

}  // extern "C"
