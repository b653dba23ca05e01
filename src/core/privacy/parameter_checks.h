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

// A value for an error message: six significant digits (or as many as asked).
inline std::string short_number(double v, int digits = 6) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

inline void require_positive(double v, const char* what) {
  if (!(v > 0) || !std::isfinite(v))
    bad_parameter(std::string(what) + " must be positive and finite, got " + short_number(v));
}

// A step cap beside the refused step: six significant digits, or all 17 where six would print
// the two alike (a cap just below the step by rounding, e.g. 2/beta = 0.9999999999999998 when the
// rows' bound is sqrt(2): "1 is larger than 1" would say nothing).
inline std::string cap_number(double cap, double eta) {
  return short_number(cap) != short_number(eta) ? short_number(cap) : short_number(cap, 17);
}

// Bolt-on Lemma 1: a gradient step is 1-expansive only for eta <= 2/beta.
inline void require_convex_step(double eta, double beta) {
  if (eta > 2.0 / beta)
    bad_parameter("learning_rate " + short_number(eta) + " is larger than 2/beta = " + cap_number(2.0 / beta, eta) +
                      ": the convex Bolt-on bound (Lemma 1) needs eta <= 2/beta",
                  "Use learning_rate <= " + cap_number(2.0 / beta, eta) + " (beta = " + short_number(beta) +
                      " is the smoothness of the loss).");
}

// Bolt-on Lemma 2: (1 - eta gamma)-expansive only for eta <= 1/beta.
inline void require_strongly_convex_step(double eta, double beta) {
  if (eta > 1.0 / beta)
    bad_parameter("learning_rate " + short_number(eta) + " is larger than 1/beta = " + cap_number(1.0 / beta, eta) +
                      ": the strongly convex Bolt-on bound (Lemma 7) needs eta <= 1/beta",
                  "Use learning_rate <= " + cap_number(1.0 / beta, eta) +
                      ", or omit learning_rate for the step min(1/beta, 1/(gamma t)).");
}

}  // namespace dptrain::privacy
