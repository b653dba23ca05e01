// dptrain.sample_batches(state float8[], rows int8) RETURNS TABLE (batch int8, "row" int8):
// the sampled mini-batches of one BST14 epoch (src/core/sgd/batch_sampler.h).
// The state is the epoch's initial aggregate state: it carries the run's
// secret key, the batch size b and the number of updates done before this
// epoch (which selects the epoch's own sampling stream). Returns
// ceil(rows / b) batches numbered 1, 2, ..., each of b distinct row numbers
// in [1, rows], batch after batch.
#include <memory>
#include <vector>

#include "core/sgd/batch_sampler.h"
#include "core/sgd/epoch_state.h"
#include "prepared_rows.h"

namespace es = dptrain::epoch_state;

namespace {

struct SamplingRun {
  std::unique_ptr<dptrain::BatchSampler> sampler;
  std::vector<std::int64_t> batch;
  std::int64_t batches = 0;
};

}  // namespace

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_sample_batches);

Datum dptrain_sample_batches(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("state and rows must not be NULL"),
                    errhint("dptrain.sample_batches is internal to dp_train; train with dp_train (or dptrain train).")));
  int len = 0;
  const double* s = dptrain::pg::float8_array_data(PG_GETARG_ARRAYTYPE_P(0), &len, "training state");
  const int64 rows = PG_GETARG_INT64(1);
  dptrain::pg::check_prepared_row_count(rows);  // rows no pass can take are refused before any allocation

  SamplingRun* run = nullptr;
  DPT_CORE({
    es::validate(s, static_cast<std::size_t>(len));
    if (!es::sampled(s))
      dptrain::fail(dptrain::ErrorKind::InvalidParameter, "this training state does not sample its batches",
                    {}, "Only BST14 states (sampled batches) have batches to sample.");
    const es::EpochConfig c = es::config_of(s);
    if (rows < c.batch_size)
      dptrain::fail(dptrain::ErrorKind::InvalidParameter, "rows must be at least the batch size", {},
                    "rows is the row count of the prepared training table; no batch is larger.");
    auto r = std::make_unique<SamplingRun>();
    r->sampler = std::make_unique<dptrain::BatchSampler>(dptrain::privacy::key_from_words(c.noise_key),
                                                         es::updates(s), rows, c.batch_size);
    r->sampler->set_interrupt_check(dptrain::pg::cancel_pending);
    r->batch.resize(static_cast<std::size_t>(c.batch_size));
    r->batches = dptrain::batches_per_epoch(rows, c.batch_size);
    run = r.release();
  });
  dptrain::pg::delete_on_reset(CurrentMemoryContext, run);

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  Datum values[2];
  bool nulls[2] = {false, false};
  for (int64 j = 1; j <= run->batches; ++j) {
    CHECK_FOR_INTERRUPTS();
    DPT_CORE({ run->sampler->next(run->batch.data()); });
    values[0] = Int64GetDatum(j);
    for (std::size_t k = 0; k < run->batch.size(); ++k) {
      values[1] = Int64GetDatum(run->batch[k]);
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
  }
  return (Datum)0;
}

}  // extern "C"
