// fmgr entry points of the DP-SGD lots aggregate
//   dptrain.dpsgd_lots(x float8[], y float8, lot int8, init float8[])
// over the rows dptrain.lot_rows streams (lot after lot, then a marker row
// with NULL x and y). Transition: the first call copies `init` (the run's lot
// state) into the aggregate's context; every row is lot_state::add_row (which
// first ends every earlier lot: noise, divide by q n, optimizer step); the
// marker only makes sure a state exists. Final: lot_state::finish ends every
// lot through the pass's last one (empty lots included) and returns the
// state. No combine function: a pass of lots is one sequential run. The
// mathematics is in src/core/dpsgd/lot_state.*; this file only moves arrays.
#include <cmath>

#include "core/dpsgd/lot_state.h"
#include "pg_glue.h"

namespace ls = dptrain::dpsgd::lot_state;
using dptrain::pg::float8_array_data;
using dptrain::pg::require_aggregate;
using dptrain::pg::state_data;

namespace {

// The state this call site copied from `init` (fn_extra): the transition
// value of this aggregate is only ever that array, so a state argument that
// is not it was not made here and is validated in full.
ArrayType* own_state(FunctionCallInfo fcinfo, MemoryContext aggcontext) {
  auto** mine = static_cast<ArrayType**>(fcinfo->flinfo->fn_extra);
  if (mine == nullptr) {
    mine = static_cast<ArrayType**>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ArrayType*)));
    fcinfo->flinfo->fn_extra = mine;
  }
  if (!PG_ARGISNULL(0) && reinterpret_cast<ArrayType*>(PG_GETARG_POINTER(0)) == *mine && *mine != nullptr) return *mine;
  ArrayType* src;
  if (PG_ARGISNULL(0)) {
    if (PG_ARGISNULL(4))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("initial lot state must not be NULL"),
                      errhint("The training run passes the initial state.")));
    src = PG_GETARG_ARRAYTYPE_P(4);
  } else {
    src = PG_GETARG_ARRAYTYPE_P(0);
  }
  int len = 0;
  const double* data = float8_array_data(src, &len, "lot state");
  DPT_CORE({ ls::validate(data, static_cast<std::size_t>(len)); });
  MemoryContext old = MemoryContextSwitchTo(aggcontext);
  *mine = dptrain::pg::make_float8_array(data, len);
  MemoryContextSwitchTo(old);
  return *mine;
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_dpsgd_lots_transition);
PG_FUNCTION_INFO_V1(dptrain_dpsgd_lots_final);

// dpsgd_lots_transition(state float8[], x float8[], y float8, lot int8, init float8[])
Datum dptrain_dpsgd_lots_transition(PG_FUNCTION_ARGS) {
  MemoryContext aggcontext = require_aggregate(fcinfo, "dptrain.dpsgd_lots_transition", "dptrain.dpsgd_lots");
  ArrayType* state = own_state(fcinfo, aggcontext);
  if (PG_ARGISNULL(1) && PG_ARGISNULL(2)) PG_RETURN_ARRAYTYPE_P(state);  // the marker row
  if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("features, label and lot must not be NULL"),
                    errhint("The DP-SGD run reads only usable rows; train with dp_train (or dptrain train).")));
  std::size_t slen;
  double* s = state_data(state, &slen);
  ArrayType* x = PG_GETARG_ARRAYTYPE_P(1);
  if (ARR_ELEMTYPE(x) != FLOAT8OID || ARR_NDIM(x) != 1 || (ARR_HASNULL(x) && array_contains_nulls(x)) ||
      ARR_DIMS(x)[0] != ls::dim(s))
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("feature array must be a one-dimensional float8[] of %d values without NULLs", ls::dim(s)),
                    errhint("Every row of one run has the same number of features; dp_train skips ragged rows before the run.")));
  const double label = PG_GETARG_FLOAT8(2);
  if (!(label >= 0 && label < ls::models(s) + (ls::models(s) == 1 ? 1 : 0)) || std::floor(label) != label)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("label %g is not a class index of this run", label),
                    errhint("Labels are class indexes assigned by the training run; train with dp_train (or dptrain train).")));
  const int64 lot = PG_GETARG_INT64(3);
  if (lot < 1)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("lot numbers start at 1"),
                    errhint("Lots are numbered by dptrain.lot_rows; train with dp_train (or dptrain train).")));
  const double* xd = reinterpret_cast<const double*>(ARR_DATA_PTR(x));
  DPT_CORE({ ls::add_row(s, xd, static_cast<int>(label), static_cast<std::uint64_t>(lot)); });
  PG_RETURN_ARRAYTYPE_P(state);
}

// Ends every lot through the pass's last lot and returns the whole state
// (the run reads theta and the optimizer's state from it).
Datum dptrain_dpsgd_lots_final(PG_FUNCTION_ARGS) {
  require_aggregate(fcinfo, "dptrain.dpsgd_lots_final", "dptrain.dpsgd_lots");
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  ArrayType* state = PG_GETARG_ARRAYTYPE_P(0);
  int len = 0;
  double* s = const_cast<double*>(float8_array_data(state, &len, "lot state"));
  DPT_CORE({
    ls::validate(s, static_cast<std::size_t>(len));
    ls::finish(s);
  });
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(s, len));
}

}  // extern "C"
