// dptrain.budget_text(numeric) -> text: a budget amount for the DP001 error
// details (sql/40_ledger.sql), as core/privacy/budget_text.h writes it.
#include "pg_glue.h"

#include <cstring>

#include "core/privacy/budget_text.h"

extern "C" {
#include "utils/fmgrprotos.h"
}

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_budget_text);

Datum dptrain_budget_text(PG_FUNCTION_ARGS) {
  const char* exact = DatumGetCString(DirectFunctionCall1(numeric_out, PG_GETARG_DATUM(0)));
  // At most kBudgetTextExactLength characters, or short_number's (fewer than 32).
  char text[64];
  DPT_CORE({ strlcpy(text, dptrain::privacy::budget_text(exact).c_str(), sizeof(text)); });
  PG_RETURN_TEXT_P(cstring_to_text(text));
}

}  // extern "C"
