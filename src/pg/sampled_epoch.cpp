// dptrain.sampled_epoch(state float8[], prepared regclass, rows int8, chunk_rows int4 DEFAULT 0)
//   RETURNS float8[]
//
// One whole BST14 epoch in one call: what
//
//   SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1)
//   FROM (SELECT dptrain.sampled_rows($1, '<prepared table>', n) AS r) s;
//
// computes (the same batches, applied in the same order, bit for bit: the
// whitebox regress test compares the two), without the executor between the
// sampler and the model. The epoch's rows (src/core/sgd/sampled_sequence.h)
// are taken a chunk at a time; each chunk is read in physical order
// (prepared_rows.h: fetch_prepared_chunk, one pin per page) into a buffer,
// then applied row by row in the sampled order. Per row this saves a
// composite result tuple, the value-per-call set-returning function machinery
// (with its search_path GUC save and restore on every call), the aggregate's
// transition call and a buffer lookup; the fetch order is not part of
// BST14's analysis (docs/whitebox.md §4, docs/performance.md).
//
// Memory: the chunk buffer (at most max(4 MB, work_mem) of features, whatever
// n and b) and the row-number map of prepared_rows.h (6 bytes per row).
#include <algorithm>
#include <memory>

#include "core/sgd/epoch_state.h"
#include "core/sgd/sampled_sequence.h"
#include "prepared_rows.h"

namespace es = dptrain::epoch_state;

namespace {

struct SequenceBox {
  std::unique_ptr<dptrain::SampledSequence> sequence;
};

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sampled_epoch);

Datum dptrain_sampled_epoch(PG_FUNCTION_ARGS) {
  const dptrain::pg::OneCallPassArguments a = dptrain::pg::one_call_pass_arguments(fcinfo, "dptrain.sampled_epoch", "training state");
  double* s = a.state;
  const int len = a.state_length;
  const int64 rows = a.rows;
  dptrain::pg::check_prepared_row_count(rows);  // before the sequence allocates its batch

  int dim = 0;
  int64 total = 0;  // entries of the epoch: ceil(n / b) * b
  SequenceBox* box = nullptr;
  DPT_CORE({
    es::validate(s, static_cast<std::size_t>(len));
    if (!es::sampled(s))
      dptrain::fail(dptrain::ErrorKind::InvalidParameter, "this training state does not sample its batches", {},
                    "Only BST14 states (sampled batches) take sampled epochs.");
    const es::EpochConfig c = es::config_of(s);
    auto b = std::make_unique<SequenceBox>();
    b->sequence = std::make_unique<dptrain::SampledSequence>(dptrain::privacy::key_from_words(c.noise_key),
                                                             es::updates(s), rows, c.batch_size);
    b->sequence->set_interrupt_check(dptrain::pg::cancel_pending);
    dim = c.dim;
    total = dptrain::batches_per_epoch(rows, c.batch_size) * c.batch_size;
    box = b.release();
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, box);

  auto apply = [&](const dptrain::pg::PreparedChunk& chunk, std::size_t n) {
    DPT_CORE({
      for (std::size_t k = 0; k < n; ++k)
        es::add_sampled_row(s, chunk.x + k * static_cast<std::size_t>(dim), dim, chunk.y[k], chunk.tags[k]);
    });
  };
  dptrain::pg::stream_one_call_pass(fcinfo, a, total, dim, box->sequence.get(), apply);
  DPT_CORE({ es::flush(s); });  // as the aggregate's final function
  PG_RETURN_ARRAYTYPE_P(dptrain::pg::make_float8_array(s, len));
}

}  // extern "C"
