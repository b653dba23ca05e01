// A CONTEXT line on every error a training call raises after its privacy
// charge was committed (a cancel, statement_timeout, a failed pass, a
// failed store): the charge stands whatever happens next (ledger.h), and
// the error says so, as the CLI's note does. Errors before the charge get
// no line; notices and warnings never do.
#pragma once

extern "C" {
#include "postgres.h"
}

#include "access.h"

namespace dptrain::pg {

struct ChargedContext {
  ErrorContextCallback callback;
  const Charge* charge;
  const char* function;
};

// Pushes the callback (it reads *charge when an error is raised); pop it
// before the function returns normally. An ERROR unwinds it by itself.
void push_charged_context(ChargedContext* c, const Charge* charge, const char* function);
void pop_charged_context(const ChargedContext* c);

}  // namespace dptrain::pg
