#include "core/algorithms/ledger_charge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/algorithms/algorithm.h"
#include "core/error.h"

namespace dptrain {

double ledger_digits_up(double amount) {
  if (!(amount > 0) || !std::isfinite(amount)) return amount;
  char text[48];
  std::snprintf(text, sizeof(text), "%.14e", amount);  // 15 significant digits, to nearest
  const double nearest = std::strtod(text, nullptr);
  if (nearest >= amount) return nearest;
  // One more in the 15th digit (10^15 digits is 10^(e+1): still exact).
  long long digits = 0;
  for (const char* c = text; *c != 'e'; ++c)
    if (*c >= '0' && *c <= '9') digits = digits * 10 + (*c - '0');
  const int exponent = std::atoi(std::strchr(text, 'e') + 1);
  std::snprintf(text, sizeof(text), "%llde%d", digits + 1, exponent - 14);
  return std::strtod(text, nullptr);
}

LedgerCharge ledger_charge(const std::string& algorithm, double epsilon, double delta) {
  if (!std::isfinite(epsilon) || epsilon < 0 || !(delta >= 0 && delta < 1))
    fail(ErrorKind::Internal, "ledger_charge: a run's (epsilon, delta) must be checked before it is charged");
  if (make_algorithm(algorithm)->adjacency() == privacy::Adjacency::ReplaceOne)
    return {ledger_digits_up(epsilon), ledger_digits_up(delta), false};
  // Group privacy for k = 2 along D -> D u D' -> D' (Vadhan 2017, Lemma 2.2).
  const privacy::DpGuarantee g = privacy::dp_add_remove_to_replace_one(epsilon, delta);
  // 2 epsilon is exact. The delta is exp(ln delta + epsilon + ln(1 + e^-epsilon))
  // in floating point: each of log, the two sums and log1p(exp) is off by at
  // most an ulp or two of its result, so the argument of exp is off by at most
  // (|ln delta| + epsilon + 1) 2^-51, and exp adds 2^-52 relative. The factor
  // 1 + (|ln delta| + epsilon + 4) 2^-51 covers both (about 1.5e-14 at
  // delta = 1e-6, epsilon = 1): the charge is never below (1 + e^epsilon) delta.
  double charged_delta = g.delta;
  if (g.delta > 0 && g.delta < 1)
    charged_delta = std::min(1.0, g.delta * (1 + (std::fabs(std::log(delta)) + epsilon + 4) * std::ldexp(1.0, -51)));
  return {ledger_digits_up(g.epsilon), ledger_digits_up(charged_delta), true};
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
