// dptrain.models: storing released models and reading them back.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// Validates a model's JSON (the core's Model::from_json) and inserts it
// into dptrain.models; returns its id. Requires SPI_connect().
int64 store_model_json(const char* model_json);

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
