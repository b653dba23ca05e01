// The registry of load specs (sql/49_load_specs.sql): the preprocessing of
// each table `dptrain load` made (core/preprocessing/load_spec.h), copied
// into the models trained on it (docs/loading-data.md).
#pragma once

#include <optional>
#include <string>

#include "pg_glue.h"

namespace dptrain::pg {

struct RunIdentities;  // access.h

// The load spec registered for `relid` (JSON text), if `relid` is still a
// table; else nullopt. Runs SPI as the current identity, which must be able
// to read dptrain.load_specs.
std::optional<std::string> registered_load_spec(Oid relid);

// Adds details->'load_spec' to a model's details (JSON text) when its source
// has a registered spec: the whole spec for a caller that may read the table
// and every row of it (no row-level security applies to it), the withheld
// form otherwise; a spec with bounds or categories read from the
// data makes the model say so (a warning, and `from_data`, which the
// generated column dptrain.models.private reads), and a NOTICE when the model
// would otherwise be private (`announce`). Returns the new details.
// The public classes of `relid`'s load spec (text[]), or nullptr: the data
// set's documented label set that `dptrain load` declared ("classes_public":
// --classes, or IDX's digits 0..9), never classes read from the rows (a spec
// without the flag gives nullptr). dp_train uses them when the caller
// declares none, so a model of a loaded MNIST is private by default. Read as
// `ids.runner`, so a role that may train without reading the table gets them
// too (they are public: docs/loading-data.md, "Public classes").
ArrayType* public_load_spec_classes(Oid relid, const RunIdentities& ids);

std::string with_load_spec(const std::string& details, Oid relid, const RunIdentities& ids, bool announce);

}  // namespace dptrain::pg
