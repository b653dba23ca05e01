#include "core/privacy/adjacency.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/privacy/messages.h"

namespace dptrain::privacy {

Adjacency parse_adjacency(const std::string& name) {
  if (name == "add-remove") return Adjacency::AddRemoveOne;
  if (name == "replace-one") return Adjacency::ReplaceOne;
  fail(ErrorKind::InvalidParameter, "unknown adjacency \"" + name + "\"", {},
       "use add-remove (neighbours differ by one added or removed row) or replace-one "
       "(neighbours differ in one row's value)");
}

std::string adjacency_name(Adjacency adjacency) {
  switch (adjacency) {
    case Adjacency::AddRemoveOne: return "add-remove";
    case Adjacency::ReplaceOne: return "replace-one";
  }
  fail(ErrorKind::Internal, "invalid Adjacency value");
}

double replace_one_sensitivity(double add_remove_sensitivity) {
  if (!std::isfinite(add_remove_sensitivity) || add_remove_sensitivity < 0)
    fail(ErrorKind::InvalidParameter, "sensitivity must be a finite number >= 0", {},
         "The sensitivity under add/remove-one adjacency: 0 or more.");
  return 2 * add_remove_sensitivity;
}

DpGuarantee dp_add_remove_to_replace_one(double epsilon, double delta) {
  if (!std::isfinite(epsilon) || epsilon < 0)
    fail(ErrorKind::InvalidParameter, "epsilon must be a finite number >= 0",
         "epsilon = " + show(epsilon), "epsilon is a privacy loss: a finite number such as 0.1, 1 or 10.");
  if (!(delta >= 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in [0, 1)", "delta = " + show(delta), "delta is a probability below 1, typically far below 1/n for n rows (e.g. 1e-5).");
  if (delta == 0) return {2 * epsilon, 0.0};
  // ln((1 + e^epsilon) delta) = ln delta + epsilon + ln(1 + e^-epsilon): no
  // overflow of e^epsilon; a delta of 1 or more says nothing and is capped.
  const double log_delta = std::log(delta) + epsilon + std::log1p(std::exp(-epsilon));
  return {2 * epsilon, log_delta >= 0 ? 1.0 : std::exp(log_delta)};
}

double zcdp_add_remove_to_replace_one(double rho) {
  if (!std::isfinite(rho) || rho < 0)
    fail(ErrorKind::InvalidParameter, "rho must be a finite number >= 0", "rho = " + show(rho),
         "rho is a zCDP budget: 0 or more (epsilon-DP is epsilon^2/2-zCDP).");
  return 4 * rho;
}

std::pair<std::vector<double>, std::vector<double>> rdp_add_remove_to_replace_one(
    const std::vector<double>& orders, const std::vector<double>& rdp) {
  if (orders.size() != rdp.size())
    fail(ErrorKind::InvalidParameter, "orders and RDP values must have the same length");
  std::pair<std::vector<double>, std::vector<double>> out;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    if (orders[i] < 4) continue;  // Proposition 2 needs alpha >= 2^(c+1) = 4
    out.first.push_back(orders[i] / 2);
    out.second.push_back(3 * rdp[i]);
  }
  if (out.first.empty())
    fail(ErrorKind::InvalidParameter, "replace-one RDP needs at least one order >= 4",
         {}, "group privacy (Mironov 2017, Proposition 2) maps order alpha >= 4 to alpha / 2");
  return out;
}

}  // namespace dptrain::privacy
