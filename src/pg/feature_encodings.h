// The registry of encoded views (sql/48_encoding.sql, docs/encoding.md), as
// the training glue reads it.
#pragma once

#include <optional>
#include <string>

#include "pg_glue.h"

namespace dptrain::pg {

// The encoding registered for `relid` (JSON text), if `relid` is still the
// view it was registered for (same definition); else nullopt. Runs SPI as the
// current identity, which must be able to read dptrain.feature_encodings.
std::optional<std::string> registered_encoding(Oid relid);

// Whether an encoding (JSON text) has categories read from the data.
bool encoding_reads_data(const std::string& encoding_json);

}  // namespace dptrain::pg
