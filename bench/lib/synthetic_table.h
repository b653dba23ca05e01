// The synthetic training tables the benchmarks time epochs on.
#pragma once

#include <string>

#include "pg_connection.h"

namespace dptrain::bench {

// public.<name> (id bigint, x float8[], y boolean) with `rows` rows of `dim`
// features, E||x||^2 = 1, and a label from a fixed hyperplane; created (or
// re-created if its shape differs) from PostgreSQL's seeded random(), so
// every run times the same data. Returns the qualified, quoted name.
std::string ensure_synthetic_table(client::PgConnection& c, const std::string& name, long rows, int dim);

}  // namespace dptrain::bench
