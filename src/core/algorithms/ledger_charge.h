// What the privacy ledger charges a private run. Budgets and table caps add
// up the runs on one table by basic composition, which is sound only when
// every term is stated under the same neighbouring relation
// (../docs/accounting.md, "Adjacency"). The ledger's relation is replace-one:
// the one of bolt-on, SCS13, BST14, AMP, P-FW and OPDisc, and the only one
// under which n is public, as every plan assumes. A run whose guarantee is
// stated under add/remove-one (the DP-SGD family, DP-AGD) is charged the
// replace-one guarantee it implies by group privacy for groups of two
// (privacy/adjacency.h): (2 epsilon, (1 + e^epsilon) delta).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace dptrain {

struct LedgerCharge {
  double epsilon = 0;
  double delta = 0;
  bool converted = false;  // the run's own guarantee is add/remove-one
};

// The charge of a private run of `algorithm` (a known algorithm; throws
// otherwise) that is (epsilon, delta)-DP under the algorithm's adjacency,
// each amount rounded up by ledger_digits_up. A delta the conversion would
// push to 1 or beyond (or overflow) is charged as 1, which no budget admits.
LedgerCharge ledger_charge(const std::string& algorithm, double epsilon, double delta);

// The smallest double >= `amount` whose 15 significant digits are exact: the
// ledger keeps each amount as numeric cast from float8, which PostgreSQL
// rounds to the NEAREST 15 significant digits (DBL_DIG), so that e.g. the
// converted delta (1 + e^0.3) 1e-6 = 2.3498588075760043e-6 would be kept as
// 2.34985880757600e-6, below the charge. Rounded up, it is kept as
// 2.34985880757601e-6; an amount already exact to 15 digits (0.5, 1e-6) is
// unchanged. 0 and non-finite amounts are returned as they are.
double ledger_digits_up(double amount);

// The charge as the model's metadata records it (details.privacy.charged).
nlohmann::json ledger_charge_json(const LedgerCharge& charge);

}  // namespace dptrain
