// The error of a gradient step whose model became infinite or NaN: a step
// or lambda far too large makes the weights overflow. One message and hint
// for the SGD states (sgd/epoch_state.h, dpsgd/lot_state.h); `algorithm`
// names the run ("SGD", "DP-SGD") and `detail` says where it happened.
#pragma once

#include <string>

#include "core/error.h"

namespace dptrain {

[[noreturn]] inline void fail_diverged(const std::string& algorithm, std::string detail) {
  fail(ErrorKind::InvalidParameter, algorithm + " diverged: the model became infinite or NaN", std::move(detail),
       "Lower learning_rate or lambda (the step times lambda should stay well below 2).");
}

}  // namespace dptrain
