#include "epochs.h"

#include "training_data.h"

namespace dptrain::pg {

void run_training_epochs(dptrain::Trainer* trainer, const char* shuffled, std::vector<double>* input,
                         const char* progress) {
  const char* epoch_sql = psprintf("SELECT dptrain.sgd_epoch(x, y, $1) FROM %s", shuffled);
  const int epochs = trainer->epochs();
  for (int e = 1; e <= epochs; ++e) {
    CHECK_FOR_INTERRUPTS();
    if (e > 1 && trainer->plan().reshuffle) reshuffle_training_data(shuffled);
    DPT_CORE({ *input = trainer->epoch_input(); });
    Oid type[1] = {FLOAT8ARRAYOID};
    Datum value[1] = {PointerGetDatum(make_float8_array(input->data(), static_cast<int>(input->size())))};
    if (SPI_execute_with_args(epoch_sql, 1, type, value, nullptr, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
      elog(ERROR, "dptrain: epoch query failed");
    bool isnull;
    const Datum result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    if (isnull) elog(ERROR, "dptrain: the epoch saw no rows");
    int len = 0;
    const double* state = float8_array_data(DatumGetArrayTypeP(result), &len, "epoch result");
    DPT_CORE({ trainer->epoch_output(state, static_cast<std::size_t>(len)); });
    SPI_freetuptable(SPI_tuptable);
    ereport(NOTICE, (errmsg("dptrain: %sepoch %d of %d done", progress, e, epochs)));
  }
}

}  // namespace dptrain::pg
