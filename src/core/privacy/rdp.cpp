#include "core/privacy/rdp.h"

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/privacy/messages.h"

namespace dptrain::privacy {

RdpConversion parse_rdp_conversion(const std::string& name) {
  if (name == "improved") return RdpConversion::Improved;
  if (name == "classic") return RdpConversion::Classic;
  fail(ErrorKind::InvalidParameter, "unknown RDP conversion \"" + name + "\"", {},
       "use improved (Balle et al. 2020, tighter) or classic (Mironov 2017)");
}

std::string rdp_conversion_name(RdpConversion conversion) {
  switch (conversion) {
    case RdpConversion::Improved: return "improved";
    case RdpConversion::Classic: return "classic";
  }
  fail(ErrorKind::Internal, "invalid RdpConversion value");
}

std::vector<double> default_rdp_orders() {
  std::vector<double> orders;
  for (int alpha = 2; alpha <= 64; ++alpha) orders.push_back(alpha);
  for (int alpha = 80; alpha <= 20000; alpha += 16) orders.push_back(alpha);
  return orders;
}

double rdp_order_floor(double largest_order, double delta) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)", "delta = " + show(delta), "delta is a probability below 1, typically far below 1/n for n rows (e.g. 1e-5).");
  if (!(largest_order > 1)) fail(ErrorKind::InvalidParameter, "RDP order must be > 1");
  return -std::log(delta) / (largest_order - 1);
}

void validate_rdp_orders(const std::vector<double>& orders) {
  if (orders.empty())
    fail(ErrorKind::InvalidParameter, "the list of RDP orders is empty", {},
         "Pass orders > 1, or leave them out for the default grid (dptrain.rdp_default_orders()).");
  for (double alpha : orders) {
    if (!(std::isfinite(alpha) && alpha > 1))
      fail(ErrorKind::InvalidParameter, "RDP orders must be finite numbers > 1",
           "order = " + show(alpha),
           "Pass orders > 1, or leave them out for the default grid (dptrain.rdp_default_orders()).");
    if (alpha > kMaxRdpOrder)
      fail(ErrorKind::ProgramLimit, "RDP order too large", "order = " + show(alpha),
           "orders up to 100000 are supported; the default grid ends at 20000");
  }
}

double rdp_to_dp_epsilon_at(double order, double rdp, double delta, RdpConversion conversion) {
  if (!(delta > 0 && delta < 1))
    fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)", "delta = " + show(delta), "delta is a probability below 1, typically far below 1/n for n rows (e.g. 1e-5).");
  if (!(order > 1)) fail(ErrorKind::InvalidParameter, "RDP order must be > 1");
  if (!(rdp >= 0)) fail(ErrorKind::InvalidParameter, "RDP value must be >= 0 (and not NaN)");
  double epsilon;
  if (conversion == RdpConversion::Classic) {
    // Mironov 2017, Proposition 3.
    epsilon = rdp - std::log(delta) / (order - 1);
  } else {
    // Balle et al. 2020, Theorem 21: eps = rdp + ln((alpha-1)/alpha) - (ln delta + ln alpha)/(alpha-1).
    epsilon = rdp + std::log1p(-1 / order) - (std::log(delta) + std::log(order)) / (order - 1);
  }
  return epsilon > 0 ? epsilon : 0;  // (eps, delta)-DP with eps < 0 is in particular (0, delta)-DP
}

RdpEpsilon rdp_to_dp(const std::vector<double>& orders, const std::vector<double>& rdp, double delta,
                     RdpConversion conversion) {
  validate_rdp_orders(orders);
  if (orders.size() != rdp.size())
    fail(ErrorKind::InvalidParameter, "orders and RDP values must have the same length");
  RdpEpsilon best{std::numeric_limits<double>::infinity(), orders.front()};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double epsilon = rdp_to_dp_epsilon_at(orders[i], rdp[i], delta, conversion);
    if (epsilon < best.epsilon) best = {epsilon, orders[i]};
  }
  return best;
}

std::vector<double> compose_rdp(const std::vector<std::vector<double>>& curves) {
  if (curves.empty()) fail(ErrorKind::InvalidParameter, "nothing to compose");
  std::vector<double> total(curves.front().size(), 0.0);
  for (const auto& curve : curves) {
    if (curve.size() != total.size())
      fail(ErrorKind::InvalidParameter, "RDP curves must be on the same grid of orders");
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += curve[i];
  }
  return total;
}

}  // namespace dptrain::privacy
