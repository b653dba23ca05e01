// dptrain.lots_pass(state float8[], prepared regclass, rows int8, chunk_rows int4 DEFAULT 0)
//   RETURNS float8[]
//
// One DP-SGD pass (the lots current .. last of the lot state) in one call:
// what
//
//   SELECT dptrain.dpsgd_lots((r).x, (r).y, (r).lot, $1)
//   FROM (SELECT dptrain.lot_rows($1, '<prepared table>', n) AS r) s;
//
// computes (the same lots, rows applied in the same order, then
// lot_state::finish: bit for bit the same state, the dpsgd regress test
// compares them), without the executor per row. The lots' rows
// (core/dpsgd/lot_sequence.h) are taken a chunk at a time, each chunk read
// in physical order (prepared_rows.h) and applied in lot order.
//
// Memory: the chunk (at most max(4 MB, work_mem) of features) and the
// row-number map (6 bytes per row). The
// streamed query above kept every row it returned until the pass ended (the
// set-returning function's results live in the ProjectSet node's argument
// context): ~2 KB per row at d = 54, 400 MB for 5 epochs of 20,000 rows
// (bench/memory.sh, docs/performance.md).
#include <cmath>
#include <memory>

#include "core/dpsgd/lot_sequence.h"
#include "core/dpsgd/lot_state.h"
#include "prepared_rows.h"

namespace ls = dptrain::dpsgd::lot_state;

namespace {

struct SequenceBox {
  std::unique_ptr<dptrain::dpsgd::LotSequence> sequence;
};

// As dpsgd_lots_transition: a label must be a class index of the run.
void check_label(const double* s, double label) {
  if (!(label >= 0 && label < ls::models(s) + (ls::models(s) == 1 ? 1 : 0)) || std::floor(label) != label)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("label %g is not a class index of this run", label),
                    errhint("Labels are class indexes assigned by the training run; train with dp_train (or dptrain train).")));
}

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_lots_pass);

Datum dptrain_lots_pass(PG_FUNCTION_ARGS) {
  const dptrain::pg::OneCallPassArguments a = dptrain::pg::one_call_pass_arguments(fcinfo, "dptrain.lots_pass", "lot state");
  double* s = a.state;
  const int len = a.state_length;
  const int64 rows = a.rows;

  SequenceBox* box = nullptr;
  int64 expected = 0;  // about q n rows per lot: a bound for the chunk
  DPT_CORE({
    ls::validate(s, static_cast<std::size_t>(len));
    if (ls::rows(s) != rows)
      dptrain::fail(dptrain::ErrorKind::InvalidParameter, "the lot state was planned for another number of rows",
                    "state: " + std::to_string(ls::rows(s)) + " rows, table: " + std::to_string(rows) + ".");
    auto b = std::make_unique<SequenceBox>();
    b->sequence = std::make_unique<dptrain::dpsgd::LotSequence>(ls::key(s), rows, ls::sampling_rate(s),
                                                               ls::current_lot(s), ls::last_lot(s));
    const double lots = static_cast<double>(ls::last_lot(s)) - static_cast<double>(ls::current_lot(s)) + 1;
    expected = static_cast<int64>(std::min(1e12, std::max(1.0, 2 * lots * ls::sampling_rate(s) * rows + 64)));
    box = b.release();
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, box);

  const int dim = ls::dim(s);
  auto apply = [&](const dptrain::pg::PreparedChunk& chunk, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) check_label(s, chunk.y[k]);
    DPT_CORE({
      for (std::size_t k = 0; k < n; ++k)
        ls::add_row(s, chunk.x + k * static_cast<std::size_t>(dim), static_cast<int>(chunk.y[k]),
                    static_cast<std::uint64_t>(chunk.tags[k]));
    });
  };
  dptrain::pg::stream_one_call_pass(fcinfo, a, expected, dim, box->sequence.get(), apply);
  DPT_CORE({ ls::finish(s); });  // as the aggregate's final function
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(s, len));
}

}  // extern "C"
