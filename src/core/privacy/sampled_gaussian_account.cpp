#include "core/privacy/sampled_gaussian_account.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/privacy/messages.h"

namespace dptrain::privacy {
namespace {

void require_clip_norm(double c) {
  if (!(std::isfinite(c) && c > 0))
    fail(ErrorKind::InvalidParameter, "the clipping norm C must be a finite number > 0", "C = " + show(c),
         "C bounds each row's gradient norm, e.g. 1.");
}

}  // namespace

bool SampledGaussianAccount::at_largest_order() const {
  double largest = *std::max_element(rdp.orders.begin(), rdp.orders.end());
  if (rdp.adjacency == Adjacency::ReplaceOne) largest /= 2;  // converted at alpha / 2
  return optimal_order == largest;
}

SampledGaussianAccount account_sampled_gaussian(double q, double noise_multiplier, double clip_norm,
                                                std::int64_t steps, double delta, const RdpOptions& options) {
  require_clip_norm(clip_norm);
  const RdpEpsilon e = sampled_gaussian_epsilon(q, noise_multiplier, steps, delta, options);
  return {q, noise_multiplier, clip_norm, steps, e.epsilon, delta, e.optimal_order, options};
}

SampledGaussianAccount calibrate_sampled_gaussian(double q, double clip_norm, std::int64_t steps,
                                                  double target_epsilon, double delta, const RdpOptions& options) {
  require_clip_norm(clip_norm);
  const RdpNoise n = sampled_gaussian_noise_multiplier(q, steps, target_epsilon, delta, options);
  return {q, n.noise_multiplier, clip_norm, steps, n.epsilon, delta, n.optimal_order, options};
}

nlohmann::json orders_as_runs(std::vector<double> orders) {
  validate_rdp_orders(orders);
  std::sort(orders.begin(), orders.end());
  orders.erase(std::unique(orders.begin(), orders.end()), orders.end());
  nlohmann::json runs = nlohmann::json::array();
  std::size_t i = 0;
  while (i < orders.size()) {
    std::size_t j = i;
    if (i + 1 < orders.size()) {
      const double step = orders[i + 1] - orders[i];
      // Extend while first + k * step reproduces the order exactly (so expansion is exact).
      while (j + 1 < orders.size() && orders[i] + static_cast<double>(j + 1 - i) * step == orders[j + 1]) ++j;
    }
    runs.push_back({orders[i], orders[j], j > i ? orders[i + 1] - orders[i] : 0.0});
    i = j + 1;
  }
  return runs;
}

std::vector<double> orders_from_runs(const nlohmann::json& runs) {
  std::vector<double> orders;
  if (!runs.is_array()) fail(ErrorKind::InvalidParameter, "RDP orders must be an array of [first, last, step] runs");
  for (const auto& run : runs) {
    if (!(run.is_array() && run.size() == 3 && run[0].is_number() && run[1].is_number() && run[2].is_number()))
      fail(ErrorKind::InvalidParameter, "an RDP order run must be [first, last, step]");
    const double first = run[0], last = run[1], step = run[2];
    if (step == 0) {
      if (first != last) fail(ErrorKind::InvalidParameter, "a run with step 0 must have first = last");
      orders.push_back(first);
      continue;
    }
    if (!(step > 0 && last >= first && (last - first) / step <= kMaxRdpOrder))
      fail(ErrorKind::InvalidParameter, "malformed RDP order run", "[" + show(first) + ", " + show(last) + ", " +
                                                                        show(step) + "]");
    for (double k = 0;; ++k) {
      const double order = first + k * step;
      if (order > last) break;
      orders.push_back(order);
    }
  }
  validate_rdp_orders(orders);
  return orders;
}

nlohmann::json account_json(const SampledGaussianAccount& a) {
  return {{"accountant", "rdp"},
          {"mechanism", "Poisson-subsampled Gaussian on the sum of clipped per-example gradients"},
          {"q", a.sampling_rate},
          {"noise_multiplier", a.noise_multiplier},
          {"clip_norm", a.clip_norm},
          {"noise_std", a.noise_multiplier * a.clip_norm},
          {"steps", a.steps},
          {"epsilon", a.epsilon},
          {"delta", a.delta},
          {"optimal_order", a.optimal_order},
          {"at_largest_order", a.at_largest_order()},
          {"conversion", rdp_conversion_name(a.rdp.conversion)},
          {"adjacency", adjacency_name(a.rdp.adjacency)},
          {"orders", orders_as_runs(a.rdp.orders)}};
}

SampledGaussianAccount account_from_json(const nlohmann::json& j) {
  try {
    if (j.at("accountant").get<std::string>() != "rdp")
      fail(ErrorKind::InvalidParameter, "not an RDP account", "accountant = " + j.at("accountant").dump());
    SampledGaussianAccount a;
    a.sampling_rate = j.at("q").get<double>();
    a.noise_multiplier = j.at("noise_multiplier").get<double>();
    a.clip_norm = j.at("clip_norm").get<double>();
    a.steps = j.at("steps").get<std::int64_t>();
    a.epsilon = j.at("epsilon").get<double>();
    a.delta = j.at("delta").get<double>();
    a.optimal_order = j.at("optimal_order").get<double>();
    a.rdp.conversion = parse_rdp_conversion(j.at("conversion").get<std::string>());
    a.rdp.adjacency = parse_adjacency(j.at("adjacency").get<std::string>());
    a.rdp.orders = orders_from_runs(j.at("orders"));
    return a;
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorKind::InvalidParameter, "malformed RDP account", e.what());
  }
}

}  // namespace dptrain::privacy
