// Shared by the model subcommands (models, predict, export): how a --model
// reference is resolved and how privacy numbers are printed.
#pragma once

#include <string>

#include "pg_connection.h"

namespace dptrain::cli {

// SQL condition selecting the model `$1` refers to among those the caller
// may see: an id, or the name of one of the caller's own models.
inline const char* kModelByReference =
    "CASE WHEN $1 ~ '^\\s*[-+]?[0-9]+\\s*$' THEN m.id = $1::bigint "
    "ELSE m.name = $1 AND m.created_by = current_user END";

// delta in scientific notation ("1.00e-06"), "-" for none.
std::string format_delta(const std::string& delta);

// epsilon or delta in a sentence: 6 significant digits ("1e-08", "0.5").
// (std::to_string printed a delta of 1e-8 as "0.000000", i.e. as pure DP.)
std::string format_privacy(double v);

}  // namespace dptrain::cli
