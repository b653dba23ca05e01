#include "phase_timing.h"

#include "pg_glue.h"

namespace dptrain::pg {

void PhaseClock::mark(const char* name, int statements) {
  const double seconds = seconds_since(last);
  last = GetCurrentTimestamp();
  if (!shown) return;
  if (statements > 0)
    elog(DEBUG1, "dptrain: phase %s: %.3f s (%d statements)", name, seconds, statements);
  else
    elog(DEBUG1, "dptrain: phase %s: %.3f s", name, seconds);
}

}  // namespace dptrain::pg
