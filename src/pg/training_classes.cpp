#include "training_classes.h"

#include "label_classes.h"

namespace dptrain::pg {
namespace {

// The declared classes as C strings: one-dimensional, no NULLs, no
// duplicates, at most kMaxClasses (checked before anything is copied).
char** declared_class_names(ArrayType* declared, int* nclasses) {
  if (ARR_NDIM(declared) != 1 || (ARR_HASNULL(declared) && array_contains_nulls(declared)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("classes must be a one-dimensional text array without NULLs"),
                    errhint("For example classes => ARRAY['no', 'yes'] (binary: negative class first).")));
  check_declared_class_count(declared);
  Datum* items;
  deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, nclasses);
  char** names = static_cast<char**>(palloc(sizeof(char*) * (*nclasses > 0 ? *nclasses : 1)));
  for (int i = 0; i < *nclasses; ++i) {
    names[i] = TextDatumGetCString(items[i]);
    for (int j = 0; j < i; ++j)
      if (strcmp(names[i], names[j]) == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("class \"%s\" is listed twice", names[i]),
                        errhint("List every class once.")));
  }
  return names;
}

// A declared class that is the text of an int8 value as int8out writes it
// ("-12"; not "+12", "012" or " 12", which no value's text is).
bool canonical_int8(const char* s, int64* value) {
  errno = 0;
  char* end = nullptr;
  const long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || strcmp(psprintf("%lld", v), s) != 0) return false;
  *value = v;
  return true;
}

// The declared classes, rebuilt with subscripts from 1: the copy numbers a
// row's class array_position(classes, label) - 1, which counts from the
// array's lower bound ('[0:1]={false,true}' made false -1 and true 0).
TrainingClasses declared_classes(ArrayType* declared) {
  TrainingClasses c{};
  c.names = declared_class_names(declared, &c.count);
  Datum* items;
  int k;
  deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &k);
  c.array = construct_array(items, k, TEXTOID, -1, false, TYPALIGN_INT);
  return c;
}

TrainingClasses boolean_classes() {
  TrainingClasses c{};
  Datum items[2] = {CStringGetTextDatum("false"), CStringGetTextDatum("true")};
  c.array = construct_array(items, 2, TEXTOID, -1, false, TYPALIGN_INT);
  c.names = declared_class_names(c.array, &c.count);
  return c;
}

// Read in the reader's scan (only a reader gets here: without read access
// such a label needs declared classes).
TrainingClasses classes_from_data(ArrayType* found, const char* label) {
  TrainingClasses c{};
  Datum* items = nullptr;
  int k = 0;
  if (found != nullptr) deconstruct_array(found, TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &k);
  if (k > kMaxClasses)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("label column \"%s\" has more than %d distinct values", label, kMaxClasses),
                    errhint("Is \"%s\" really the label? Classification supports up to %d classes.", label,
                            kMaxClasses)));
  c.array = construct_array(items, k, TEXTOID, -1, false, TYPALIGN_INT);
  c.names = declared_class_names(c.array, &c.count);
  c.from_data = true;
  return c;
}

}  // namespace

void check_declared_class_count(ArrayType* declared) {
  if (ArrayGetNItems(ARR_NDIM(declared), ARR_DIMS(declared)) > kMaxClasses)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("too many classes"),
                    errdetail("%d classes were declared; at most %d are supported.",
                              ArrayGetNItems(ARR_NDIM(declared), ARR_DIMS(declared)), kMaxClasses),
                    errhint("Classification supports up to %d classes.", kMaxClasses)));
}

// What is checked is the label's class text (label_classes.h): the copy
// maps array_position(classes, <class text>). For a boolean or integer
// label each value has one text ('true', '-12'), so the same rows are those
// whose value is not the value of a declared class, compared as values
// without forming every row's text (the text and its search cost about half
// a scan: docs/performance.md, "The validation"); a declared class that is
// no value's text ('yes'; an integer label's '01' is '1' already:
// canonical_declared_classes) matches no row either way, and a NULL label
// counts as outside as before.
OutsideCount outside_declared(const char* y, Oid label_type, ArrayType* declared) {
  Datum* items;
  bool* nulls;
  int k;
  deconstruct_array(declared, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &k);
  const bool boolean = label_type == BOOLOID;
  if (!boolean && label_type != INT2OID && label_type != INT4OID && label_type != INT8OID)
    return {psprintf("count(*) FILTER (WHERE array_position($1, %s) IS NULL)::int8", label_class_sql(y, label_type)),
            TEXTARRAYOID, PointerGetDatum(declared)};
  Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * (k > 0 ? k : 1)));
  int m = 0;
  for (int i = 0; i < k; ++i) {
    if (nulls[i]) continue;  // refused by declared_class_names
    const char* name = TextDatumGetCString(items[i]);
    int64 v;
    if (boolean && (strcmp(name, "true") == 0 || strcmp(name, "false") == 0))
      values[m++] = BoolGetDatum(strcmp(name, "true") == 0);
    else if (!boolean && canonical_int8(name, &v))
      values[m++] = Int64GetDatum(v);
  }
  ArrayType* accepted = boolean ? construct_array(values, m, BOOLOID, 1, true, TYPALIGN_CHAR)
                                : construct_array(values, m, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
  return {psprintf("count(*) FILTER (WHERE NOT coalesce(%s = ANY($1), false))::int8", y),
          static_cast<Oid>(boolean ? BOOLARRAYOID : INT8ARRAYOID), PointerGetDatum(accepted)};
}

TrainingClasses resolve_classes(ArrayType* declared, bool boolean_label, ArrayType* found, const char* label) {
  const TrainingClasses c = declared != nullptr ? declared_classes(declared)
                            : boolean_label     ? boolean_classes()
                                                : classes_from_data(found, label);
  if (c.count < 2)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION), errmsg("training needs at least two classes"),
                    // only when read from the data: a declared class says nothing about the rows
                    c.count == 1 && c.from_data ? errdetail("Every row has the label \"%s\".", c.names[0]) : 0,
                    declared != nullptr ? errhint("Declare at least two classes (binary: negative class first).")
                                        : errhint("Check the label column, or declare the classes explicitly.")));
  return c;
}

void check_declared_class_shape(ArrayType* declared) {
  int ndeclared;
  (void) declared_class_names(declared, &ndeclared);
}

}  // namespace dptrain::pg
