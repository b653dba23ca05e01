// dptrain.models: storing released models and reading them back.
#pragma once

#include "access.h"

namespace dptrain::pg {

// A model name is a name, never an id (text that looks like an integer is
// refused: 22023), and unique among the models of its creator (42710). Only
// the caller's own models are consulted: nothing is learned about others'.
// Requires SPI_connect().
void check_model_name(const char* name, const RunIdentities& ids);

// Validates a model's JSON (the core's Model::from_json) and inserts it
// into dptrain.models (as ids.runner, created by ids.caller). A private run
// that was not charged yet (ids.charge; the controller's store_model) is
// charged first, committed on its own, and a refused charge stores nothing;
// the model takes the id its charge reserved, and may not spend more than
// was charged. A run that is not private is logged in the ledger in the
// same transaction. Returns the id. Requires SPI_connect().
// `stored_details` (optional): the details as stored (with the encoding of an
// encoded view, docs/encoding.md), palloc'd.
// `encoding` (optional, JSON text): the encoding the run applied to the
// columns of `relid` itself (dp_train's features => ARRAY[...]), stored
// instead of a registered view's.
// The controller's runs: training_prepare / training_prepare_run remember
// the relation they resolved, and dptrain.store_model refuses a model whose
// source name now resolves to another relation (a schema renamed between the
// two calls; docs/governance.md, "Names resolved again").
void remember_prepared_source(Oid relid);

int64 store_model_json(const char* model_json, const RunIdentities& ids, Oid relid, const char* source_name,
                       char** stored_details = nullptr, const char* encoding = nullptr);

// A stored model the caller may see.
struct StoredModel {
  int64 id;
  char* name;
  ArrayType* packed;   // packed_model layout, float8[]
  int nclasses;
  char** classes;
  char* encoding;      // details->'encoding' as JSON text (docs/encoding.md), or nullptr
};
// By text: an id if it looks like one, else the name of one of the caller's
// own models. By id: any model the caller may see (row security on
// dptrain.models). A model that does not exist and one the caller may not
// see give the same error. Requires SPI_connect(); result in `context`.
void load_model(const char* reference, MemoryContext context, StoredModel* out);
void load_model_by_id(int64 id, MemoryContext context, StoredModel* out);

// What a model kept across calls (dp_predict's, dp_features') was read
// under: the caller and the active snapshot. A PL/pgSQL function keeps its
// expressions' state, and so such a cache, for the whole transaction: a model
// dropped or renamed by a transaction committed meanwhile kept predicting in
// its later statements (test/isolation/specs/model_drop_race.spec), and a
// caller switched by SET ROLE got the other role's model. A commit of another
// transaction changes a later snapshot's xmax or its count of running
// transactions (xcnt), a write of this one its curcid.
struct ModelRead {
  bool snapshot = false;
  Oid user = InvalidOid;
  TransactionId xmax = InvalidTransactionId;
  uint32 xcnt = 0;
  CommandId curcid = InvalidCommandId;
};
ModelRead model_read_now();
// Whether a model read under `then` is still the one a read now would find.
bool same_model_read(const ModelRead& then, const ModelRead& now);

}  // namespace dptrain::pg
