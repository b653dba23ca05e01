// dptrain.lot_rows(state float8[], prepared regclass, rows int8)
//   RETURNS SETOF dptrain.lot_row (lot int8, x float8[], y float8)
//
// The rows of DP-SGD lots current .. last of the lot state
// (core/dpsgd/lot_state.h), lot after lot: each lot is the Poisson sample
// of core/dpsgd/poisson_lots.h (B_t ~ Binomial(n, q) from the run's secret
// key, then a uniform B_t-subset of the row numbers 1..n), fetched from the
// prepared temp table by tuple id (prepared_rows.h). Then one marker row
// (last lot, NULL, NULL), so that the aggregate runs, and ends every lot of
// the pass, even when all of them are empty. Called in a SELECT list, so it
// streams (value-per-call) into the aggregate:
//
//   SELECT dptrain.dpsgd_lots((r).x, (r).y, (r).lot, $1)
//   FROM (SELECT dptrain.lot_rows($1, '<prepared table>', n) AS r) s;
#include <memory>
#include <vector>

#include "core/dpsgd/lot_state.h"
#include "core/dpsgd/poisson_lots.h"
#include "prepared_rows.h"

namespace ls = dptrain::dpsgd::lot_state;

namespace {

// The C++ part of one call sequence, freed with the SRF's memory context.
struct LotBox {
  std::unique_ptr<dptrain::dpsgd::PoissonLots> lots;
  std::vector<std::int64_t> lot;  // the rows of the current lot
};

struct LotScan {
  dptrain::pg::PreparedRows table;
  LotBox* box;
  uint64 current;  // the lot being returned; 0 before the first
  uint64 first;    // the pass's lots: first .. last
  uint64 last;
  uint64 next;     // index into box->lot
  bool marker_sent;
};

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_lot_rows);

Datum dptrain_lot_rows(PG_FUNCTION_ARGS) {
  FuncCallContext* fc;
  if (SRF_IS_FIRSTCALL()) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("state, table and rows must not be NULL"),
                    errhint("dptrain.lot_rows is internal to the DP-SGD run of dp_train; train with dp_train (or dptrain train).")));
    fc = SRF_FIRSTCALL_INIT();
    MemoryContext old = MemoryContextSwitchTo(fc->multi_call_memory_ctx);
    int len = 0;
    const double* s = dptrain::pg::float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &len, "lot state");
    const Oid relid = PG_GETARG_OID(1);
    const int64 rows = PG_GETARG_INT64(2);
    auto* e = static_cast<LotScan*>(palloc0(sizeof(LotScan)));
    LotBox* box = nullptr;
    DPT_CORE({
      ls::validate(s, static_cast<std::size_t>(len));
      if (ls::rows(s) != rows)
        dptrain::fail(dptrain::ErrorKind::InvalidParameter, "the lot state was planned for another number of rows",
                      "state: " + std::to_string(ls::rows(s)) + " rows, table: " + std::to_string(rows) + ".");
      auto b = std::make_unique<LotBox>();
      b->lots = std::make_unique<dptrain::dpsgd::PoissonLots>(ls::key(s), rows, ls::sampling_rate(s));
      e->first = ls::current_lot(s);
      e->last = ls::last_lot(s);
      box = b.release();
    });
    dptrain::pg::delete_on_reset(fc->multi_call_memory_ctx, box);
    e->box = box;
    e->current = e->first - 1;
    dptrain::pg::open_prepared_rows(fcinfo, relid, rows, &e->table);

    TupleDesc out;
    if (get_call_result_type(fcinfo, nullptr, &out) != TYPEFUNC_COMPOSITE)
      elog(ERROR, "dptrain.lot_rows must return a row type");
    fc->tuple_desc = BlessTupleDesc(out);
    fc->user_fctx = e;
    MemoryContextSwitchTo(old);
  }
  fc = SRF_PERCALL_SETUP();
  auto* e = static_cast<LotScan*>(fc->user_fctx);
  // Next lot with rows left (empty lots are skipped here: the aggregate
  // still ends them, with their noise, when a later row or the marker comes).
  while (e->current < e->last && (e->current < e->first || e->next == e->box->lot.size())) {
    CHECK_FOR_INTERRUPTS();
    ++e->current;
    e->next = 0;
    LotBox* box = e->box;
    const uint64 t = e->current;
    DPT_CORE({ box->lot = box->lots->lot(t); });
  }
  Datum values[3] = {Int64GetDatum(static_cast<int64>(e->last)), 0, 0};
  bool nulls[3] = {false, true, true};
  if (e->current >= e->first && e->next < e->box->lot.size()) {
    const int64 row = e->box->lot[e->next++];
    dptrain::pg::fetch_prepared_row(&e->table, row);
    values[0] = Int64GetDatum(static_cast<int64>(e->current));
    values[1] = e->table.slot->tts_values[1];
    values[2] = e->table.slot->tts_values[2];
    nulls[1] = nulls[2] = false;
  } else if (e->marker_sent) {
    dptrain::pg::close_prepared_rows(&e->table);
    SRF_RETURN_DONE(fc);
  } else {
    e->marker_sent = true;  // (last lot, NULL, NULL)
  }
  // heap_form_tuple copies x out of the buffer before the next fetch unpins it.
  HeapTuple tuple = heap_form_tuple(fc->tuple_desc, values, nulls);
  SRF_RETURN_NEXT(fc, HeapTupleGetDatum(tuple));
}

}  // extern "C"
