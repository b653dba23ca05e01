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
    fc = SRF_FIRSTCALL_INIT();
    MemoryContext old = MemoryContextSwitchTo(fc->multi_call_memory_ctx);
    const auto args = dptrain::pg::sampled_pass_arguments(fcinfo, "dptrain.lot_rows", "lot state");
    const double* s = args.state;
    const int len = args.state_length;
    const int64 rows = args.rows;
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
    dptrain::pg::open_prepared_rows(fcinfo, args.relid, rows, &e->table);
    fc->tuple_desc = dptrain::pg::sampled_pass_result_type(fcinfo, "dptrain.lot_rows");
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
  if (e->current >= e->first && e->next < e->box->lot.size()) {
    dptrain::pg::fetch_prepared_row(&e->table, e->box->lot[e->next++]);
    SRF_RETURN_NEXT(fc, dptrain::pg::sampled_pass_row(fc->tuple_desc, static_cast<int64>(e->current), &e->table));
  }
  if (e->marker_sent) {
    dptrain::pg::close_prepared_rows(&e->table);
    SRF_RETURN_DONE(fc);
  }
  e->marker_sent = true;  // (last lot, NULL, NULL)
  SRF_RETURN_NEXT(fc, dptrain::pg::sampled_pass_marker(fc->tuple_desc, static_cast<int64>(e->last)));
}

}  // extern "C"
