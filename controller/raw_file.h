// Scoring a raw data file with a model's load spec (docs/loading-data.md):
// the model's details->'load_spec' turns the file into rows exactly as
// `dptrain load` turned the training file into the table (loader/load_spec.h),
// and the rows go into a temporary table that dp_evaluate / dp_predict score
// like any other, so `dptrain eval --file` prints dp_evaluate's very numbers.
#pragma once

#include <string>

#include "pg_connection.h"

namespace dptrain::cli {

struct RawFile {
  std::string path, labels_file;  // labels_file: IDX labels (empty: derived from the name)
};

// Inside an open transaction: reads the model's load spec (an error if the
// model does not exist, has none or had it withheld), reads `file` with it
// and copies its rows into a temporary table (id, x, y) dropped at commit.
// Returns the table's name.
std::string load_raw_file(client::PgConnection& conn, const std::string& model, const RawFile& file);

}  // namespace dptrain::cli
