// The privacy ledger seen from C (the logic itself is SQL, sql/40_ledger.sql):
// every training run is checked against the caller's budget before it reads
// any data, and charged in the transaction that stores its model.
#pragma once

#include "access.h"

namespace dptrain::pg {

// The run a model came from, for the charge.
struct RunCharge {
  Oid relid;
  const char* source_name;
  const char* algorithm;
  bool has_epsilon;
  double epsilon;
  bool has_delta;
  double delta;
  bool seeded;
};

// Before the data is read (no lock): ERROR 42501 if the caller may neither
// read the data nor has a budget; DP002 if it has a budget and the run is not
// private (no epsilon, or a seed); DP001 if the requested (epsilon, delta)
// exceed what is left. Returns whether a budget row applies. Requires SPI.
bool ledger_precheck(const RunIdentities& ids, Oid relid, bool has_epsilon, double epsilon, bool has_delta,
                     double delta, bool seeded);

// Charges model `model_id` to the caller's budget with the row locked until
// the end of the transaction (same errors as the precheck, with the model's
// final epsilon and delta), and logs the run. Requires SPI.
void ledger_charge(const RunIdentities& ids, const RunCharge& run, int64 model_id);

}  // namespace dptrain::pg
