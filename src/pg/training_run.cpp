#include "training_run.h"

#include "ledger.h"
#include "training_data.h"

namespace dptrain::pg {

RunIdentities decide_access(FunctionCallInfo fcinfo, Oid relid, const char* label, const char* features,
                            const dptrain::TrainingConfig& c) {
  RunIdentities ids;
  ids.caller = GetUserId();
  ids.runner = function_owner(fcinfo);
  char* relname = require_training_relation(relid);
  const AttrNumber x = require_column(relid, relname, features, "features");
  const AttrNumber y = require_column(relid, relname, label, "label");
  ids.caller_reads = can_read_columns(relid, y, x, ids.caller);
  ids.reader = ids.caller_reads ? ids.caller : relation_owner(relid);
  ledger_precheck(ids, relid, c.epsilon.has_value(), c.epsilon.value_or(0), c.delta.has_value(),
                  c.delta.value_or(0), c.seed.has_value());
  return ids;
}

void require_free_name(const char* name, Oid runner) {
  if (name == nullptr || name[0] == '\0') return;
  Oid types[1] = {TEXTOID};
  Datum values[1] = {CStringGetTextDatum(name)};
  IdentitySwitch sw;
  switch_identity(&sw, runner, false);
  if (SPI_execute_with_args("SELECT 1 FROM dptrain.models WHERE name = $1", 1, types, values, nullptr, true, 1) !=
      SPI_OK_SELECT)
    elog(ERROR, "dptrain: could not read dptrain.models");
  restore_identity(&sw);
  if (SPI_processed > 0)
    ereport(ERROR, (errcode(ERRCODE_DUPLICATE_OBJECT), errmsg("a model named \"%s\" already exists", name),
                    errhint("Choose another name, or leave name NULL.")));
}

void run_training_epochs(dptrain::Trainer* trainer, const char* shuffled, const char* epoch_sql,
                         std::vector<double>* input, const char* progress) {
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
