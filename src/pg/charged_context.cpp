#include "charged_context.h"

extern "C" {
#include "utils/elog.h"
}

namespace dptrain::pg {
namespace {

void add_charged_line(void* arg) {
  const auto* c = static_cast<const ChargedContext*>(arg);
  if (c->charge->model_id == 0) return;
  // Notices (00000) and warnings (01xxx) go on; only errors carry the line.
  const int category = ERRCODE_TO_CATEGORY(geterrcode());
  if (category == ERRCODE_SUCCESSFUL_COMPLETION || category == ERRCODE_WARNING) return;
  errcontext("%s: this run's privacy charge (epsilon = %g, delta = %g) was committed before this error; it stands",
             c->function, c->charge->epsilon, c->charge->delta);
}

}  // namespace

void push_charged_context(ChargedContext* c, const Charge* charge, const char* function) {
  c->charge = charge;
  c->function = function;
  c->callback.callback = add_charged_line;
  c->callback.arg = c;
  c->callback.previous = error_context_stack;
  error_context_stack = &c->callback;
}

void pop_charged_context(const ChargedContext* c) { error_context_stack = c->callback.previous; }

}  // namespace dptrain::pg
