// Where the dptrain extension lives in the connected database.
#pragma once

#include <string>

#include "pg_connection.h"

namespace dptrain::client {

// Quoted schema of the user-facing API (dp_train, dp_evaluate, ...); throws
// PgError with a hint if the extension is not installed.
std::string api_schema(PgConnection& conn);

}  // namespace dptrain::client
