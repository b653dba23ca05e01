// What a failed run left in the privacy ledger, told to the user.
//
// A private run is charged before it reads a row, in a transaction of its
// own that commits at once, and the charge is never refunded
// (docs/governance.md, "Charged first, never refunded"). So a run that is
// cancelled (Ctrl-C, SIGTERM), killed (pg_terminate_backend), or loses its
// server (immediate shutdown) after the charge has spent its budget: the CLI
// used to print "cancelled ... (nothing was stored)" or a bare connection
// error, and the user could not tell that the budget was spent. Likewise a
// connection lost after the server committed the model leaves a stored model
// (and its charge) the user never heard of.
//
// ChargeWatch marks the newest ledger row of this session before the run;
// if the run fails, report() reads the rows of this login on the run's table
// added since (over a fresh connection: the run's may be dead, or refuse
// statements after Ctrl-C) and says what was charged and whether a model was
// stored -- or, when the server cannot be reached, that this is unknown and
// how to find out. (No ledger column tells apart two concurrent runs of the
// same login on the same table: each would report both rows.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pg_connection.h"

namespace dptrain::client {

class ChargeWatch {
 public:
  // `table`: the run's source as resolved (the rows of runs of this session
  // on other tables are not this run's).
  ChargeWatch(PgConnection& conn, std::string conninfo, const std::string& table);
  // The lines to print after the run's error (empty: nothing was charged).
  std::string report() const;

 private:
  std::string conninfo_;
  std::string table_oid_;
  std::optional<std::int64_t> mark_;  // nullopt: no ledger to read (e.g. an older extension)
};

// A note main prints after the error of a failed command (empty: none).
void set_failure_note(std::string note);
const std::string& failure_note();

// Runs `run`; if it throws, the report of `watch` becomes the failure note
// that main prints after the error, and the exception goes on.
template <class F>
auto with_charge_report(const ChargeWatch& watch, F&& run) -> decltype(run()) {
  try {
    return run();
  } catch (...) {
    set_failure_note(watch.report());
    throw;
  }
}

}  // namespace dptrain::client
