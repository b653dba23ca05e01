// Whether a model name of a role is held by a transaction that has not
// ended: one in progress, or prepared (PREPARE TRANSACTION), that stored a
// model under it or renamed one to it. Its row is invisible to the check of
// the name (check_model_name reads committed rows), and the unique index
// would make the run's INSERT wait for that transaction -- after the charge,
// and for a prepared one until someone commits or rolls it back.
#pragma once

#include "pg_glue.h"

namespace dptrain::pg {

// The transaction holding `name` among `creator`'s models in
// dptrain.models, other than this one; InvalidTransactionId if none.
// A transaction that begins to hold it after this check is not seen: the
// run's INSERT then waits for it as before.
TransactionId model_name_holder(const char* creator, const char* name);

}  // namespace dptrain::pg
