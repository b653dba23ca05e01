// A float's text that does not depend on the session's settings: its
// shortest exact text (Ryu, common/shortest_dec.h), what float8out and
// float4out print with extra_float_digits >= 1 (the default), and -0 as '0'
// (-0 = 0); 'NaN', 'Infinity' and '-Infinity' by name. The output functions'
// text (v::text) follows the session's extra_float_digits: 0 and less round
// it (0.3 and 0.30000000000000004 are both '0.3' with 0, 0.1234 is '0.1'
// with -15). float8in / float4in read the text back as the very value.
// SQL: dptrain.float_text(float8 | float4) (sql/16_float_text.sql), for a
// float label's class (label_classes.h) and an encoded number column's text
// (encoded_features.h, dp_encoded_view).
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

char* float8_text(double v);  // palloc'd
char* float4_text(float v);   // palloc'd

}  // namespace dptrain::pg
