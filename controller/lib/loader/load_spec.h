// Scoring a raw file with the preprocessing of a loaded table: the load spec
// (Dataset::metadata(), stored with every model trained on the table as
// details->'load_spec') turned back into LoadOptions that read a new file
// exactly as `dptrain load` read the table's rows -- the same format and CSV
// dialect, the same columns, bounds and category lists (now fixed, whatever
// the new file holds), label mapping, dropped-row rule, projection and row
// normalization. `dptrain eval --file` and `dptrain predict --file` use it,
// so the features of a file equal those the loader wrote for it, bit for bit.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "loader/dataset.h"

namespace dptrain::loader {

// What `dptrain load` registers for a table (dptrain.register_load_spec):
// the metadata without the per-part row counts (dropped rows, clipped
// values), which scoring does not need and which are facts of the test rows
// too, and, for a one-vs-rest boolean label (--positive among more than two
// labels), without the negative labels (KDD Cup's attack names, which the
// boolean y does not show): "classes" is [positive] and "one_vs_rest" true.
// The server copies it into every model trained on the table.
nlohmann::json registered_spec(const nlohmann::json& metadata);

// The table comment when the spec is registered: the public part only, since
// every role can read a comment (pg_description), also one that may train on
// the table without reading it. Kept: format, reading options, column names,
// dimensions, normalization, projection, the origin of every bound and list,
// and the bounds and lists the user declared. Left out: label values
// (classes), bounds and categories read from the data (and the feature
// names, which list categories), row counts.
nlohmann::json public_comment(const nlohmann::json& metadata);

// Options that read `file` (its whole content, as one part) under `spec`.
// `labels_file`: IDX labels (empty: derived from the file name). Throws
// InvalidParameter for a spec that lacks what scoring needs (a table loaded
// before load specs were recorded in full, or a withheld spec).
LoadOptions scoring_options(const nlohmann::json& spec, const std::string& file, const std::string& labels_file);

// A Dataset read with scoring_options; an error in reading is reported as a
// mismatch between the file and the spec, and the result is checked to give
// the spec's columns and number of features.
Dataset scoring_dataset(const nlohmann::json& spec, const std::string& file, const std::string& labels_file);

}  // namespace dptrain::loader
