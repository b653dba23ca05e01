// A cancel check handed to the core by its caller (the PostgreSQL glue's
// cancel_pending, which only reads the flags: the glue raises the cancel
// itself once the core's Error reaches it). Long loops of the core poll it.
#pragma once

#include <functional>
#include <string>

#include "core/error.h"

namespace dptrain {

using InterruptCheck = std::function<bool()>;

// Throws the cancel's Error (SQLSTATE 57014, "<what> was interrupted") when
// `check` is set and says stop.
inline void stop_if_interrupted(const InterruptCheck& check, const std::string& what) {
  if (check && check()) throw Error(ErrorKind::Internal, what + " was interrupted", {}, {}, "57014");
}

}  // namespace dptrain
