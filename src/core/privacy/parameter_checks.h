// Argument checks shared by the sensitivity bounds: a violated precondition
// is an Error(InvalidParameter) that names it (eta <= 2/beta, ...).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.h"

namespace dptrain::privacy {

[[noreturn]] inline void bad_parameter(const std::string& message, const std::string& hint = {}) {
  fail(ErrorKind::InvalidParameter, message, {}, hint);
}

// A value for an error message: six significant digits.
inline std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

inline void require_positive(double v, const char* what) {
  if (!(v > 0) || !std::isfinite(v))
    bad_parameter(std::string(what) + " must be positive and finite, got " + short_number(v));
}

// Bolt-on Lemma 1: a gradient step is 1-expansive only for eta <= 2/beta.
inline void require_convex_step(double eta, double beta) {
  if (eta > 2.0 / beta)
    bad_parameter("learning_rate " + short_number(eta) + " is larger than 2/beta = " + short_number(2.0 / beta) +
                      ": the convex Bolt-on bound (Lemma 1) needs eta <= 2/beta",
                  "Use learning_rate <= " + short_number(2.0 / beta) + " (beta = " + short_number(beta) +
                      " is the smoothness of the loss).");
}

// Bolt-on Lemma 2: (1 - eta gamma)-expansive only for eta <= 1/beta.
inline void require_strongly_convex_step(double eta, double beta) {
  if (eta > 1.0 / beta)
    bad_parameter("learning_rate " + short_number(eta) + " is larger than 1/beta = " + short_number(1.0 / beta) +
                      ": the strongly convex Bolt-on bound (Lemma 7) needs eta <= 1/beta",
                  "Use learning_rate <= " + short_number(1.0 / beta) +
                      ", or omit learning_rate for the step min(1/beta, 1/(gamma t)).");
}

}  // namespace dptrain::privacy
