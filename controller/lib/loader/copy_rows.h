// Streaming the rows of one part of a Dataset into a table (id, x, y) by
// binary COPY: `dptrain load` fills its tables with it, and `dptrain eval
// --file` / `predict --file` the temporary table they score.
#pragma once

#include <string>

#include "loader/dataset.h"
#include "pg_connection.h"

namespace dptrain::loader {

// `table` is quoted SQL; its x column is float8[] or (sparse) dptrain.sparsevec.
// A progress bar when `show_progress` and the part is large.
PartStats copy_part(client::PgConnection& conn, Dataset& data, Part part, const std::string& table,
                    bool show_progress, bool sparse);

}  // namespace dptrain::loader
