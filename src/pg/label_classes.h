// A label's class: the label value written as text, one text per value of
// the label type's equality. Models store their classes as text, dp_predict
// returns one of them, and every statement that maps a row to its class
// (the copy, a pass read in place, dp_evaluate) compares the row's class
// text with them. A number label has several texts per value (numeric 1,
// 1.0 and 1.00; float8 0 and -0), which were different classes, although
// PostgreSQL's = and GROUP BY take them as one: a number's class is now its
// canonical text (README.md, "Labels"):
//   numeric          trim_scale: 1.0 -> '1', 2.50 -> '2.5' (no -0 in numeric)
//   float4, float8   -0 -> '0'; every other value its shortest exact text
//                    (dptrain.float_text: not the output function's text,
//                    which extra_float_digits rounds)
// A class text depends on the value only, never on the session's settings.
//   integers, boolean, text, enums: their text (already one per value)
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// The SQL expression of the class text of the label expression `y` of type
// `label_type` (the label column's base type).
const char* label_class_sql(const char* y, Oid label_type);

// The declared classes (text[]) as classes of a label of `label_type`: a
// declared name that is an input of the label's number or boolean type
// names that value, written as label_class_sql writes it ('1.0' and '1.00'
// of a numeric label are '1', '-0' of a float label is '0', '01' and ' +1'
// of an integer label are '1'; 't', 'yes', 'on' and '1' of a boolean label
// are 'true'); any other name ('yes' for a number label, 'maybe' for a
// boolean one) is kept as it is, and matches no row. Two names of one value are refused (22023), as a
// class listed twice is. Arrays that are not one-dimensional or hold NULLs
// are returned as they are (declared_class_names refuses them).
ArrayType* canonical_declared_classes(ArrayType* declared, Oid label_type);

// The first declared name that is no value of the number or boolean label
// type (it matches no row: '<=50K' for a boolean label), or nullptr.
const char* declared_non_value(ArrayType* declared, Oid label_type);

}  // namespace dptrain::pg
