#include "label_classes.h"

#include "float_text.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgrprotos.h"
}

namespace dptrain::pg {
namespace {

// The white space the number input functions skip (isspace in the C locale).
bool c_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// `s` without the white space around it (palloc'd).
char* trimmed(const char* s) {
  while (c_space(*s)) ++s;
  size_t n = strlen(s);
  while (n > 0 && c_space(s[n - 1])) --n;
  return pnstrdup(s, n);
}

bool all_digits(const char* p, const char* end) {
  if (p == end) return false;
  for (; p < end; ++p)
    if (*p < '0' || *p > '9') return false;
  return true;
}

// An integer as int8in reads it (a sign, digits; white space around):
// its canonical text, or nullptr (not an integer, or beyond int8).
char* integer_class(const char* name) {
  const char* t = trimmed(name);
  const char* digits = (*t == '+' || *t == '-') ? t + 1 : t;
  if (!all_digits(digits, digits + strlen(digits))) return nullptr;
  errno = 0;
  const long long v = strtoll(t, nullptr, 10);
  if (errno != 0) return nullptr;
  return psprintf("%lld", v);
}

// A decimal number as numeric_in reads it: [sign] digits [. digits]
// [e [sign] digits], white space around. Limited to what numeric_in cannot
// refuse (1,000 characters, an exponent of at most 3 digits: its limit is
// 1,000), so that no name raises its error; 'NaN' and the infinities by
// name. The canonical text (trim_scale), or nullptr.
char* numeric_class(const char* name) {
  const char* t = trimmed(name);
  if (pg_strcasecmp(t, "nan") == 0) return pstrdup("NaN");
  for (const char* inf : {"infinity", "+infinity", "inf", "+inf"})
    if (pg_strcasecmp(t, inf) == 0) return pstrdup("Infinity");
  for (const char* inf : {"-infinity", "-inf"})
    if (pg_strcasecmp(t, inf) == 0) return pstrdup("-Infinity");
  if (strlen(t) > 1000) return nullptr;
  const char* p = (*t == '+' || *t == '-') ? t + 1 : t;
  const char* e = p;
  while (*e != '\0' && *e != 'e' && *e != 'E') ++e;
  const char* point = strchr(p, '.');
  if (point != nullptr && point > e) point = nullptr;
  const bool mantissa = point == nullptr ? all_digits(p, e)
                                         : (point == p || all_digits(p, point)) &&
                                               (point + 1 == e || all_digits(point + 1, e)) && e - p > 1;
  if (!mantissa) return nullptr;
  if (*e != '\0') {
    const char* x = e + 1;
    if (*x == '+' || *x == '-') ++x;
    const size_t digits = strlen(x);
    if (digits == 0 || digits > 3 || !all_digits(x, x + digits)) return nullptr;
  }
  const Datum v = DirectFunctionCall3(numeric_in, CStringGetDatum(t), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
  return DatumGetCString(DirectFunctionCall1(numeric_out, DirectFunctionCall1(numeric_trim_scale, v)));
}

// A float as float8in / float4in reads it (strtod; white space around; not
// out of the type's range): its class text (float8_text, float4_text), or
// nullptr.
char* float_class(const char* name, bool single) {
  const char* t = trimmed(name);
  if (*t == '\0') return nullptr;
  char* end = nullptr;
  errno = 0;
  if (single) {
    float v = strtof(t, &end);
    if (*end != '\0' || (errno == ERANGE && (v == 0 || std::isinf(v)))) return nullptr;
    return float4_text(v);
  }
  double v = strtod(t, &end);
  if (*end != '\0' || (errno == ERANGE && (v == 0 || std::isinf(v)))) return nullptr;
  return float8_text(v);
}

// A boolean as boolin reads it (parse_bool: 't', 'true', 'yes', 'on', '1',
// their unique prefixes, any case; white space around): its class text
// ('true' or 'false', what boolout writes), or nullptr.
char* boolean_class(const char* name) {
  bool v;
  if (!parse_bool(trimmed(name), &v)) return nullptr;
  return pstrdup(v ? "true" : "false");
}

// The class text of a declared name for a label of `label_type` (nullptr:
// no value of the type), or nullptr for a type whose classes are its text.
using CanonicalClass = char* (*)(const char*, Oid);
CanonicalClass canonical_class_of(Oid label_type) {
  switch (label_type) {
    case INT2OID:
    case INT4OID:
    case INT8OID: return [](const char* s, Oid) { return integer_class(s); };
    case NUMERICOID: return [](const char* s, Oid) { return numeric_class(s); };
    case BOOLOID: return [](const char* s, Oid) { return boolean_class(s); };
    case FLOAT4OID:
    case FLOAT8OID: return [](const char* s, Oid t) { return float_class(s, t == FLOAT4OID); };
    default: return nullptr;
  }
}

}  // namespace

const char* declared_non_value(ArrayType* declared, Oid label_type) {
  const CanonicalClass canonical = canonical_class_of(label_type);
  if (canonical == nullptr || declared == nullptr || ARR_NDIM(declared) != 1 ||
      (ARR_HASNULL(declared) && array_contains_nulls(declared)))
    return nullptr;
  Datum* items;
  int k;
  deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &k);
  for (int i = 0; i < k; ++i) {
    char* name = TextDatumGetCString(items[i]);
    if (canonical(name, label_type) == nullptr) return name;
  }
  return nullptr;
}

const char* label_class_sql(const char* y, Oid label_type) {
  switch (label_type) {
    case NUMERICOID: return psprintf("pg_catalog.trim_scale(%s)::pg_catalog.text", y);
    // Not y::text: its text depends on extra_float_digits (float_text.h).
    case FLOAT4OID: return psprintf("dptrain.float_text(%s::pg_catalog.float4)", y);
    case FLOAT8OID: return psprintf("dptrain.float_text(%s::pg_catalog.float8)", y);
    default: return psprintf("%s::pg_catalog.text", y);
  }
}

ArrayType* canonical_declared_classes(ArrayType* declared, Oid label_type) {
  const CanonicalClass canonical = canonical_class_of(label_type);
  if (canonical == nullptr) return declared;
  if (ARR_NDIM(declared) != 1 || (ARR_HASNULL(declared) && array_contains_nulls(declared))) return declared;
  Datum* items;
  int k;
  deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &k);
  char** given = static_cast<char**>(palloc(sizeof(char*) * (k > 0 ? k : 1)));
  char** names = static_cast<char**>(palloc(sizeof(char*) * (k > 0 ? k : 1)));
  Datum* out = static_cast<Datum*>(palloc(sizeof(Datum) * (k > 0 ? k : 1)));
  for (int i = 0; i < k; ++i) {
    given[i] = TextDatumGetCString(items[i]);
    char* c = canonical(given[i], label_type);
    names[i] = c != nullptr ? c : given[i];
    out[i] = CStringGetTextDatum(names[i]);
  }
  // Two spellings of one value (an exact repetition is
  // check_declared_class_shape's "listed twice", also before any row is read).
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < i; ++j)
      if (strcmp(names[i], names[j]) == 0 && strcmp(given[i], given[j]) != 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("class \"%s\" is listed twice", names[i]),
                        errdetail("\"%s\" and \"%s\" are the same %s label.", given[j], given[i],
                                  format_type_be(label_type)),
                        errhint("List every class once.")));
  return construct_array(out, k, TEXTOID, -1, false, TYPALIGN_INT);
}

}  // namespace dptrain::pg

