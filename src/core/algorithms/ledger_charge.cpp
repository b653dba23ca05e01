#include "core/algorithms/ledger_charge.h"

#include <cmath>

#include "core/algorithms/algorithm.h"
#include "core/error.h"

namespace dptrain {

LedgerCharge ledger_charge(const std::string& algorithm, double epsilon, double delta) {
  if (!std::isfinite(epsilon) || epsilon < 0 || !(delta >= 0 && delta < 1))
    fail(ErrorKind::Internal, "ledger_charge: a run's (epsilon, delta) must be checked before it is charged");
  if (make_algorithm(algorithm)->adjacency() == privacy::Adjacency::ReplaceOne) return {epsilon, delta, false};
  // Group privacy for k = 2 along D -> D u D' -> D' (Vadhan 2017, Lemma 2.2).
  const privacy::DpGuarantee g = privacy::dp_add_remove_to_replace_one(epsilon, delta);
  return {g.epsilon, g.delta, true};
}

nlohmann::json ledger_charge_json(const LedgerCharge& charge) {
  nlohmann::json j = {{"adjacency", "replace-one"}, {"epsilon", charge.epsilon}, {"delta", charge.delta}};
  j["rule"] = charge.converted
                  ? "the run's (epsilon, delta) is under add/remove-one; the ledger (replace-one) charges "
                    "(2 epsilon, (1 + e^epsilon) delta): group privacy for two rows (Vadhan 2017, Lemma 2.2)"
                  : "the run's own (epsilon, delta)";
  return j;
}

}  // namespace dptrain
