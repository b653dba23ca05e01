// Where a run's wall time goes, measured inside the backend: the SPI driver
// marks the end of each phase (validation, shuffle/copy, passes by kind,
// release, store) and reports each as a DEBUG1 line
//   dptrain: phase <name>: <seconds> s[ (<count> statements)]
// so that a benchmark (bench/end_to_end.sh) splits a dp_train call with
// `SET client_min_messages = debug1` instead of guessing from the outside.
// Wall times only: they say how long the backend worked, which a caller
// measures anyway from the outside (nothing about the rows beyond that).
#pragma once

extern "C" {
#include "postgres.h"
#include "utils/timestamp.h"
}

namespace dptrain::pg {

struct PhaseClock {
  TimestampTz last = 0;

  void start() { last = GetCurrentTimestamp(); }
  // Reports the time since the last mark (or start()) as phase `name`.
  void mark(const char* name, int statements = 0);
};

}  // namespace dptrain::pg
