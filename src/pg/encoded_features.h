// Training and scoring on ordinary columns in one call (docs/encoding.md,
// "One call"): dp_train(..., features => ARRAY['age', 'sex'], bounds => ...,
// categories => ...) builds the encoding with dp_encoding and applies it
// inside the run's own statements, as the features expression
//   dptrain.encode_row('<encoding>'::jsonb, VARIADIC ARRAY["age"::text, ...])
// (quoted identifiers and a quoted literal only); dp_evaluate without a
// features column applies the encoding stored with the model the same way.
#pragma once

#include <optional>
#include <string>

#include "access.h"

namespace dptrain::pg {

// The columns and public declarations of a one-call run (palloc'd).
struct FeatureColumns {
  int count;
  char** names;
  Datum bounds;          // jsonb
  Datum categories;      // jsonb
  Datum normalization;   // text
  Datum names_array;     // text[] as passed
};

// From dp_train's arguments: `features` a text[] of column names without
// NULLs (ERROR otherwise), the three declarations not NULL.
void read_feature_columns(FunctionCallInfo fcinfo, int features, int bounds, int categories, int normalization,
                          FeatureColumns* out);

// Every column exists and none is the label (ERROR otherwise); whether
// `role` may SELECT the label and every feature column.
bool check_feature_columns(Oid relid, const char* relname, const char* label, const FeatureColumns& cols, Oid role);

// The run's encoding (normalized JSON text, palloc'd), built by
// dptrain.build_encoding (dp_encoding's body, never called by the name in the
// extension's schema, where other roles may plant overloads) as the caller
// in a security-restricted operation. A caller without read access must have declared the
// categories of every text column (42501 otherwise: reading them is reading
// the data); nothing is read from the data then. Requires SPI_connect().
char* build_run_encoding(Oid relid, const FeatureColumns& cols, const RunIdentities& ids);

// The features expression of an encoding over the columns of relation
// `relid` (palloc'd SQL). ERROR if the encoding is malformed. With
// `replace_unusable` (a run without read access), a numeric value beyond
// float8 reads as NaN, which makes its row the fixed public row, instead of
// failing the read.
char* encoded_features_sql(const char* encoding_json, Oid relid, bool replace_unusable);

// The names of the columns an encoding reads (palloc'd; *n of them). ERROR
// if the encoding is malformed.
char** encoding_column_names(const char* encoding_json, int* n);

// The columns of `relid` have the types `encoding_json` expects (42804
// otherwise, before any row is read). Requires SPI_connect().
void check_encoding_fits(Oid relid, const char* encoding_json);

}  // namespace dptrain::pg
