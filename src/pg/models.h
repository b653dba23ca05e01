// dptrain.models: storing released models and reading them back.
#pragma once

#include "access.h"

namespace dptrain::pg {

// Validates a model's JSON (the core's Model::from_json), inserts it into
// dptrain.models (as ids.runner, created by ids.caller) and charges the
// caller's privacy budget on `relid` in the same transaction (ledger.h): if
// the charge is refused, the ERROR takes the model with it. Returns its id.
// Requires SPI_connect().
int64 store_model_json(const char* model_json, const RunIdentities& ids, Oid relid, const char* source_name);

// A stored model, looked up by name or (if all digits) by id.
struct StoredModel {
  int64 id;
  char* name;
  ArrayType* packed;   // packed_model layout, float8[]
  int nclasses;
  char** classes;
};
// Requires SPI_connect(); result allocated in `context`.
void load_model(const char* reference, MemoryContext context, StoredModel* out);

}  // namespace dptrain::pg
