// The privacy ledger seen from C (the logic itself is SQL, sql/40_ledger.sql):
// every training run is checked against the caller's budget and the
// table's cap before it reads any data; a private run is charged before it
// reads its rows, in a transaction of its own (charge_worker.h), with the id
// its model will have; a run that is not private is logged when its model is
// stored.
#pragma once

#include <optional>
#include <string>

#include "access.h"

namespace dptrain::pg {

// The run a model came from.
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

// What the ledger charges a run of `algorithm` at (epsilon, delta): its
// replace-one guarantee (core/algorithms/ledger_charge.h), in place. Values
// the argument checks refuse (negative, NaN, delta outside [0, 1)) are left
// for them.
void charged_amounts(const std::string& algorithm, bool has_epsilon, double* epsilon, double* delta);

// A run's charge: charged_amounts of the model's or the request's (epsilon, delta).
RunCharge make_run_charge(Oid relid, const char* source_name, const std::string& algorithm,
                          const std::optional<double>& epsilon, const std::optional<double>& delta, bool seeded);

inline bool is_private(const RunCharge& run) { return run.has_epsilon && !run.seeded; }

// Before the data is read (no lock): ERROR 42501 if the caller may neither
// read the data nor has a budget; DP002 if it has a budget and the run is not
// private (no epsilon, or a seed); DP001 if the requested (epsilon, delta)
// exceed what is left of its budget or of the table's cap. Returns whether a
// budget row applies. Requires SPI.
bool ledger_precheck(const RunIdentities& ids, Oid relid, bool has_epsilon, double epsilon, bool has_delta,
                     double delta, bool seeded);

// Charges a private run (to the caller's budget and the table's cap, where
// they apply; same errors as the precheck) and logs it with the id reserved
// for its model, committed before this returns, whatever happens to the
// caller's transaction afterwards.
Charge ledger_reserve(const RunIdentities& ids, const RunCharge& run);

// ERROR unless the model of a charged run spends at most what was charged.
void require_within_charge(const Charge& charge, const RunCharge& run);

// In the transaction that stores model `model_id` of a run that is not
// private: logs it (DP002 under a budget, 42501 without read access).
// Requires SPI.
void ledger_log(const RunIdentities& ids, const RunCharge& run, int64 model_id);

}  // namespace dptrain::pg
