// Where a run's wall time goes, measured inside the backend: the SPI driver
// marks the end of each phase (validation, shuffle/copy, passes by kind,
// release, store) and reports each as a DEBUG1 line
//   dptrain: phase <name>: <seconds> s[ (<count> statements)]
// so that a benchmark (bench/end_to_end.sh) splits a dp_train call with
// `SET client_min_messages = debug1` instead of guessing from the outside.
// Wall times only. For a caller without read access nothing is printed
// (`shown` false): the phases split the call's time into the count, the copy
// and the passes, whose times track data-dependent work (AMP's number of
// passes, the owner's view code on the rows) that timing the whole call from
// the outside blurs (docs/governance.md, "What a model's metadata says").
#pragma once

extern "C" {
#include "postgres.h"
#include "utils/timestamp.h"
}

namespace dptrain::pg {

struct PhaseClock {
  TimestampTz last = 0;
  bool shown = true;  // false: measure, print nothing (a caller without read access)

  void start() { last = GetCurrentTimestamp(); }
  // Reports the time since the last mark (or start()) as phase `name`.
  void mark(const char* name, int statements = 0);
};

}  // namespace dptrain::pg
