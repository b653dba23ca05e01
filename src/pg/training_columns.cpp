#include "training_columns.h"

#include "sparsevec.h"

namespace dptrain::pg {
namespace {

// A table of separate number columns trains as it is (docs/encoding.md): the hint says how.
constexpr const char* kSeparateColumnsHint =
    "One float8[], real[] or sparsevec column, or separate columns as an array: features => ARRAY['a', 'b'] "
    "(docs/encoding.md).";

}  // namespace

AttrNumber require_column(Oid relid, const char* relname, const char* column, const char* role) {
  if (column == nullptr || column[0] == '\0')
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s column name must not be empty", role),
                    errhint("Pass the name of the %s column.", role)));
  const AttrNumber attnum = get_attnum(relid, column);
  const bool label = strcmp(role, "label") == 0;
  // features => 'a,b,c' names one column; several number columns are an array of names.
  if ((attnum == InvalidAttrNumber || attnum < 0) && !label && strchr(column, ',') != nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("column \"%s\" of relation \"%s\" does not exist", column, relname),
                    errhint("%s", kSeparateColumnsHint)));
  if (attnum == InvalidAttrNumber || attnum < 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("column \"%s\" of relation \"%s\" does not exist", column, relname),
                    errhint("Pass the name of the %s column as it is spelled in the table, without quotes "
                            "(e.g. %s => '%s').",
                            role, label ? "label" : "features", label ? "y" : "x")));
  return attnum;
}

Oid check_feature_type(Oid relid, AttrNumber attnum, const char* column) {
  const Oid type = getBaseType(get_atttype(relid, attnum));
  if (OidIsValid(type) && type == sparsevec_type_oid()) return type;
  const Oid elem = get_element_type(type);
  if (elem != FLOAT8OID && elem != FLOAT4OID && elem != NUMERICOID && elem != INT2OID && elem != INT4OID &&
      elem != INT8OID)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("feature column \"%s\" must be an array of numbers (float8[] or real[])", column),
                    errdetail("Its type is %s.", format_type_be(get_atttype(relid, attnum))),
                    errhint("%s", kSeparateColumnsHint)));
  return elem;
}

LabelKind check_label_type(Oid relid, AttrNumber attnum, const char* column) {
  const Oid type = getBaseType(get_atttype(relid, attnum));
  switch (type) {
    case BOOLOID: return LabelKind::Boolean;
    case INT2OID:
    case INT4OID:
    case INT8OID:
    case NUMERICOID:
    case FLOAT4OID:
    case FLOAT8OID: return LabelKind::Numeric;
    case TEXTOID:
    case VARCHAROID:
    case BPCHAROID:
    case NAMEOID: return LabelKind::Text;
    default:
      // An enum's class is its text, as a text label's (label_classes.h);
      // classes read from the data come in the enum's
      // own order (the ORDER BY of row_checks_sql), the declared one.
      if (type_is_enum(type)) return LabelKind::Text;
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("label column \"%s\" must be boolean, a number, text or an enum", column),
                      errdetail("Its type is %s.", format_type_be(get_atttype(relid, attnum))),
                      errhint("Use a boolean, integer, text or enum label column (cast it in a view).")));
  }
  return LabelKind::Text;
}

Oid check_evaluation_columns(Oid relid, const char* label, const char* features, Oid* label_type) {
  (void) check_label_type(relid, get_attnum(relid, label), label);
  *label_type = getBaseType(get_atttype(relid, get_attnum(relid, label)));
  return features != nullptr ? check_feature_type(relid, get_attnum(relid, features), features) : FLOAT8OID;
}

}  // namespace dptrain::pg
