// dptrain.sampled_rows(state float8[], prepared regclass, rows int8)
//   RETURNS SETOF dptrain.sampled_row (batch int8, x float8[], y float8)
//
// The rows of one BST14 epoch, batch after batch: the batches of
// src/core/sgd/batch_sampler.h (the same ones dptrain.sample_batches lists)
// fetched straight from the prepared temp table by tuple id. Called in a
// SELECT list, so it streams (value-per-call) into the aggregate:
//
//   SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1)
//   FROM (SELECT dptrain.sampled_rows($1, '<prepared table>', n) AS r) s;
//
// Rows are fetched by tuple id (prepared_rows.h).
#include <memory>
#include <vector>

#include "core/sgd/batch_sampler.h"
#include "core/sgd/epoch_state.h"
#include "prepared_rows.h"

namespace es = dptrain::epoch_state;

namespace {

// Everything C++ of one call sequence, freed with the SRF's memory context.
struct SamplerBox {
  std::unique_ptr<dptrain::BatchSampler> sampler;
  std::vector<std::int64_t> batch;
};

struct Epoch {
  dptrain::pg::PreparedRows table;
  SamplerBox* box;
  int64 batch_size;
  int64 batches;
  int64 current;          // batch being returned (1-based), 0 before the first
  int64 next_in_batch;    // index into box->batch
};

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sampled_rows);

Datum dptrain_sampled_rows(PG_FUNCTION_ARGS) {
  FuncCallContext* fc;
  if (SRF_IS_FIRSTCALL()) {
    fc = SRF_FIRSTCALL_INIT();
    MemoryContext old = MemoryContextSwitchTo(fc->multi_call_memory_ctx);
    const auto args = dptrain::pg::sampled_pass_arguments(fcinfo, "dptrain.sampled_rows", "training state");
    const double* s = args.state;
    const int len = args.state_length;
    const int64 rows = args.rows;
    dptrain::pg::check_prepared_row_count(rows);  // before the sampler allocates its batch
    auto* e = static_cast<Epoch*>(palloc0(sizeof(Epoch)));
    SamplerBox* box = nullptr;
    DPT_CORE({
      es::validate(s, static_cast<std::size_t>(len));
      if (!es::sampled(s))
        dptrain::fail(dptrain::ErrorKind::InvalidParameter, "this training state does not sample its batches");
      const es::EpochConfig c = es::config_of(s);
      auto b = std::make_unique<SamplerBox>();
      b->sampler = std::make_unique<dptrain::BatchSampler>(dptrain::privacy::key_from_words(c.noise_key),
                                                           es::updates(s), rows, c.batch_size);
      b->sampler->set_interrupt_check(dptrain::pg::cancel_pending);
      b->batch.resize(static_cast<std::size_t>(c.batch_size));
      e->batch_size = c.batch_size;
      e->batches = dptrain::batches_per_epoch(rows, c.batch_size);
      box = b.release();
    });
    dptrain::pg::delete_on_reset(fc->multi_call_memory_ctx, box);
    e->box = box;
    e->next_in_batch = e->batch_size;  // the first call starts batch 1
    dptrain::pg::open_prepared_rows(fcinfo, args.relid, rows, &e->table);
    fc->tuple_desc = dptrain::pg::sampled_pass_result_type(fcinfo, "dptrain.sampled_rows");
    fc->user_fctx = e;
    MemoryContextSwitchTo(old);
  }
  fc = SRF_PERCALL_SETUP();
  auto* e = static_cast<Epoch*>(fc->user_fctx);
  if (e->next_in_batch == e->batch_size) {
    if (e->current == e->batches) {
      dptrain::pg::close_prepared_rows(&e->table);
      SRF_RETURN_DONE(fc);
    }
    ++e->current;
    e->next_in_batch = 0;
    SamplerBox* box = e->box;
    DPT_CORE({ box->sampler->next(box->batch.data()); });
  }
  const int64 row = e->box->batch[static_cast<std::size_t>(e->next_in_batch++)];
  dptrain::pg::fetch_prepared_row(&e->table, row);
  SRF_RETURN_NEXT(fc, dptrain::pg::sampled_pass_row(fc->tuple_desc, e->current, &e->table));
}

}  // extern "C"
