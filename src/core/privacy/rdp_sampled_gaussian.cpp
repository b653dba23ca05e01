#include "core/privacy/rdp_sampled_gaussian.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/interrupt.h"
#include "core/privacy/messages.h"
#include "core/privacy/log_math.h"
#include "core/privacy/rdp_sampled_gaussian_series.h"

namespace dptrain::privacy {
namespace {

void require_rate(double q) {
  if (!(q > 0 && q <= 1))
    fail(ErrorKind::InvalidParameter, "the sampling rate q must be in (0, 1]", "q = " + show(q),
         "q is the expected batch size divided by the number of rows");
}

void require_sigma(double sigma) {
  if (!std::isfinite(sigma) || sigma <= 0)
    fail(ErrorKind::InvalidParameter, "the noise multiplier sigma must be a finite number > 0",
         "sigma = " + show(sigma), "sigma is the noise standard deviation over the clipping norm, e.g. 1.1.");
}

void require_steps(std::int64_t steps) {
  if (steps < 1)
    fail(ErrorKind::InvalidParameter, "steps must be >= 1", "steps = " + std::to_string(steps),
         "steps is the number T of noisy steps (lots): 1 or more.");
}

void require_delta(double delta) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)", "delta = " + show(delta), "delta is a probability below 1, typically far below 1/n for n rows (e.g. 1e-5).");
}

bool is_integer(double x) { return std::floor(x) == x; }

// RDP of one step at any order of a grid, for one (q, sigma).
class OneStepRdp {
 public:
  OneStepRdp(double q, double sigma) : q_(q), sigma_(sigma) {
    if (q < 1) integer_.emplace(q, sigma);
  }

  double at(double order) {
    if (q_ == 1) return order / (2 * sigma_ * sigma_);  // the plain Gaussian mechanism
    if (is_integer(order))
      return log_math::log1p_exp(integer_->log_a_minus_one(static_cast<long>(order))) / (order - 1);
    const double log_a = log_a_fractional(q_, sigma_, order);
    return (log_a > 0 ? log_a : 0) / (order - 1);  // A >= 1 exactly; clamp rounding below it
  }

 private:
  double q_, sigma_;
  std::optional<IntegerOrderSeries> integer_;  // q < 1
};

// An order of the grid as the conversion sees it: T * RDP(order) * factor is converted to
// (epsilon, delta) at dp_order. Add/remove-one: (alpha, alpha, 1); replace-one: group
// privacy, (alpha, alpha / 2, 3) for alpha >= 4 (adjacency.h). Sorted by order.
struct ConvertedOrder {
  double order, dp_order, factor;
};

std::vector<ConvertedOrder> converted_orders(std::vector<double> orders, Adjacency adjacency) {
  validate_rdp_orders(orders);
  std::sort(orders.begin(), orders.end());
  std::vector<ConvertedOrder> out;
  if (adjacency == Adjacency::ReplaceOne) {
    const auto unit = rdp_add_remove_to_replace_one(orders, std::vector<double>(orders.size(), 1.0));
    for (std::size_t i = 0; i < unit.first.size(); ++i)
      out.push_back({2 * unit.first[i], unit.first[i], unit.second[i]});
  } else {
    for (double a : orders) out.push_back({a, a, 1.0});
  }
  return out;
}

// ln(1/delta) / (alpha - 1) at the largest order the conversion uses.
double order_floor(const std::vector<ConvertedOrder>& orders, double delta) {
  return rdp_order_floor(orders.back().dp_order, delta);
}

}  // namespace

double sampled_gaussian_rdp(double q, double noise_multiplier, double order) {
  require_rate(q);
  require_sigma(noise_multiplier);
  validate_rdp_orders({order});
  return OneStepRdp(q, noise_multiplier).at(order);
}

std::vector<double> sampled_gaussian_rdp_curve(double q, double noise_multiplier, std::int64_t steps,
                                               const std::vector<double>& orders) {
  require_rate(q);
  require_sigma(noise_multiplier);
  require_steps(steps);
  validate_rdp_orders(orders);
  OneStepRdp rdp(q, noise_multiplier);
  std::vector<double> curve;
  curve.reserve(orders.size());
  for (double order : orders) curve.push_back(static_cast<double>(steps) * rdp.at(order));
  return curve;
}

RdpEpsilon sampled_gaussian_epsilon(double q, double noise_multiplier, std::int64_t steps, double delta,
                                    const RdpOptions& options) {
  require_rate(q);
  require_sigma(noise_multiplier);
  require_steps(steps);
  require_delta(delta);
  const std::vector<ConvertedOrder> orders = converted_orders(options.orders, options.adjacency);
  OneStepRdp rdp(q, noise_multiplier);
  std::vector<double> known(orders.size(), -1.0);  // RDP of the orders computed so far
  RdpEpsilon best{std::numeric_limits<double>::infinity(), orders.front().dp_order};
  auto epsilon_at = [&](std::size_t i, double one_step_rdp) {
    return rdp_to_dp_epsilon_at(orders[i].dp_order, orders[i].factor * static_cast<double>(steps) * one_step_rdp,
                                delta, options.conversion);
  };
  auto evaluate = [&](std::size_t i) {
    stop_if_interrupted(options.interrupted, "the RDP accounting");
    known[i] = rdp.at(orders[i].order);
    const double epsilon = epsilon_at(i, known[i]);
    if (epsilon < best.epsilon || (epsilon == best.epsilon && orders[i].dp_order < best.optimal_order))
      best = {epsilon, orders[i].dp_order};
  };
  // The Renyi divergence is non-decreasing in the order (van Erven & Harremoes 2014,
  // Theorem 3): an order's RDP is at least that of any smaller order computed (`lower`), so
  // its epsilon is at least the conversion of `lower` at that order. Orders whose bound cannot
  // beat the best epsilon so far are skipped without summing their series: same minimum as
  // the whole grid. First probes, about one order per doubling, so that `best` is near the
  // optimum early; then every order, ascending.
  double lower = 0;
  auto consider = [&](std::size_t i) {
    if (known[i] < 0 && epsilon_at(i, lower) < best.epsilon) evaluate(i);
    if (known[i] >= 0) lower = std::max(lower, known[i]);
  };
  for (double target = 2;; target *= 2) {
    const auto at = std::lower_bound(orders.begin(), orders.end(), target,
                                     [](const ConvertedOrder& o, double t) { return o.order < t; });
    consider(at == orders.end() ? orders.size() - 1 : static_cast<std::size_t>(at - orders.begin()));
    if (at == orders.end()) break;
  }
  lower = 0;
  for (std::size_t i = 0; i < orders.size(); ++i) consider(i);
  return best;
}

RdpNoise sampled_gaussian_noise_multiplier(double q, std::int64_t steps, double target_epsilon, double delta,
                                           const RdpOptions& options) {
  require_rate(q);
  require_steps(steps);
  require_delta(delta);
  if (!std::isfinite(target_epsilon) || target_epsilon <= 0)
    fail(ErrorKind::InvalidParameter, "the target epsilon must be a finite number > 0",
         "epsilon = " + show(target_epsilon), "Pass the epsilon the noise must reach, e.g. 1.");
  // As sigma -> infinity the RDP vanishes and epsilon tends to the conversion's value at the
  // largest order, at most ln(1/delta)/(alpha_max - 1). Targets near that floor would be met
  // only at the top of the grid with a noise multiplier that the grid, not the mechanism,
  // decides: refuse anything below twice the floor.
  const std::vector<ConvertedOrder> orders = converted_orders(options.orders, options.adjacency);
  const double floor = order_floor(orders, delta);
  if (target_epsilon < 2 * floor)
    fail(ErrorKind::InvalidParameter, "the target epsilon is too close to the RDP order floor",
         "epsilon = " + show(target_epsilon) + " is below 2 ln(1/delta)/(alpha_max - 1) = " + show(2 * floor) +
             " (alpha_max = " + show(orders.back().dp_order) + ", delta = " + show(delta) + ")",
         "raise epsilon or delta, or add larger RDP orders (up to 100000)");

  auto evaluate = [&](double sigma) { return sampled_gaussian_epsilon(q, sigma, steps, delta, options); };
  // Bracket: eps(lo) > target >= eps(hi).
  double lo = 1, hi = 1;
  RdpEpsilon at_hi = evaluate(hi);
  if (at_hi.epsilon <= target_epsilon) {
    for (int i = 0;; ++i) {
      lo = hi / 2;
      if (evaluate(lo).epsilon > target_epsilon) break;
      // Even sigma = 2^-61 spends less: a user's absurd target, not a bug.
      if (i > 60)
        fail(ErrorKind::InvalidParameter, "the target epsilon is too large for the RDP calibration",
             "epsilon = " + show(target_epsilon) + " is not reached even with a noise multiplier of " + show(lo) + ".",
             "Pass an epsilon of ordinary size (e.g. 0.1 .. 10).");
      hi = lo;
    }
    at_hi = evaluate(hi);
  } else {
    for (int i = 0;; ++i) {
      lo = hi;
      hi *= 2;
      at_hi = evaluate(hi);
      if (at_hi.epsilon <= target_epsilon) break;
      if (i > 60) fail(ErrorKind::Internal, "rdp-sigma: no sufficient noise multiplier found");
    }
  }
  for (int i = 0; i < 200 && hi / lo - 1 > 1e-10; ++i) {
    const double mid = std::sqrt(lo * hi);
    if (mid <= lo || mid >= hi) break;
    const RdpEpsilon at_mid = evaluate(mid);
    if (at_mid.epsilon <= target_epsilon) {
      hi = mid;
      at_hi = at_mid;
    } else {
      lo = mid;
    }
  }
  return {hi, at_hi.epsilon, at_hi.optimal_order};
}

}  // namespace dptrain::privacy
