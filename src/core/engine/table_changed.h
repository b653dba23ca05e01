// The error of a pass that read another number of rows than the run was
// planned for: the table was written between the count (before the charge;
// n fixes the plan, the sensitivity and the noise) and the pass. dp_train
// and dp_tune in a READ COMMITTED transaction count and read under separate
// snapshots, so a committed INSERT or DELETE in between gets here; it is a
// concurrent write, not a bug (DP003, as a changed shard's count: epoch_run),
// and names no count.
#pragma once

#include <string>

#include "core/error.h"

namespace dptrain {

[[noreturn]] inline void refuse_changed_table(const std::string& pass) {
  throw Error(ErrorKind::InvalidState, "the table changed during training",
              pass + " did not read the rows counted before the run (the count fixes its plan and its noise).",
              "Train on a table no one writes while the run lasts, or run it in a REPEATABLE READ "
              "transaction (one snapshot for the count and every read), and try again.",
              sqlstate::kTableChanged);
}

}  // namespace dptrain
