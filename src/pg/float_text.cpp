#include "float_text.h"

extern "C" {
#include "common/shortest_dec.h"
}

namespace dptrain::pg {

char* float8_text(double v) {
  if (v == 0) v = 0;  // -0 is 0
  char* buf = static_cast<char*>(palloc(DOUBLE_SHORTEST_DECIMAL_LEN));
  double_to_shortest_decimal_buf(v, buf);
  return buf;
}

char* float4_text(float v) {
  if (v == 0) v = 0;
  char* buf = static_cast<char*>(palloc(FLOAT_SHORTEST_DECIMAL_LEN));
  float_to_shortest_decimal_buf(v, buf);
  return buf;
}

}  // namespace dptrain::pg

extern "C" {

PG_FUNCTION_INFO_V1(dptrain_float_text_float8);
PG_FUNCTION_INFO_V1(dptrain_float_text_float4);

// dptrain.float_text(float8 | float4) -> text
Datum dptrain_float_text_float8(PG_FUNCTION_ARGS) {
  PG_RETURN_TEXT_P(cstring_to_text(dptrain::pg::float8_text(PG_GETARG_FLOAT8(0))));
}

Datum dptrain_float_text_float4(PG_FUNCTION_ARGS) {
  PG_RETURN_TEXT_P(cstring_to_text(dptrain::pg::float4_text(PG_GETARG_FLOAT4(0))));
}

}  // extern "C"
