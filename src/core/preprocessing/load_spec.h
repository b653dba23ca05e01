// The preprocessing of a table made by `dptrain load` (its "load spec", the
// JSON of controller/lib/loader/dataset.h's metadata()): registered by the
// loader beside the table, copied into the details of every model trained
// on it (details->'load_spec', docs/loading-data.md), so that a raw file can
// be scored later with the very same map (`dptrain eval --file`).
//
// Privacy: scaling bounds and category lists the loader read from the data
// depend on every row, so a model trained on such a table is outside the
// differential-privacy guarantee with respect to the raw file (the rows of
// the table it saw are not a per-row function of the raw rows). These two
// functions are the one place that decides it, for the loader, the server
// (which does not trust the flag the loader wrote) and the tests.
#pragma once

#include <nlohmann/json.hpp>

namespace dptrain::preprocessing {

// Whether a load spec holds bounds or category lists read from the data:
// a numeric column whose "bounds" is not "user", or a categorical column
// whose "list" is not "user". Throws InvalidParameter for a spec that is not
// a JSON object or whose numeric / categorical entries are malformed.
bool load_spec_reads_data(const nlohmann::json& spec);

// The spec as a role that may not read the table may see it: only the
// format and the two flags ({"format", "from_data", "withheld": true}).
// Every other field is a fact of the rows (label values, data-derived
// bounds and categories, dropped-row counts) or of the loader's machine
// (file names), so it is left out whole rather than field by field.
nlohmann::json withheld_load_spec(const nlohmann::json& spec);

}  // namespace dptrain::preprocessing
