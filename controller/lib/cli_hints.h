// The server's and the core's hints are written for SQL users
// ("pass epsilon => ..."); the CLI shows them in its own syntax
// ("pass --epsilon ...") so a CLI user can act on them as written.
#pragma once

#include <string>

namespace dptrain::client {

// Rewrites the SQL spellings of a hint into dptrain CLI syntax:
//   name => 'value' | name => value   ->  --name value   (underscores -> hyphens)
//   name => true | name => false      ->  --name | --no-name
//   name => '{...}'                   ->  --name '{...}' (JSON stays shell-quoted)
//   source => 'tbl'                   ->  --table tbl
//   learning_rate, batch_size, huber_h (bare)  ->  --learning-rate, ...
//   dp_train / dp_tune / dp_evaluate / dp_predict  ->  dptrain train / tune / eval / predict
// Text that is not one of these is left as it is.
std::string cli_syntax(const std::string& sql_hint);

}  // namespace dptrain::client
