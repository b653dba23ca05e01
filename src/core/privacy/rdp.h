// Renyi differential privacy (Mironov 2017): a mechanism is (alpha, eps)-RDP if the
// Renyi divergence of order alpha between its output distributions on neighbouring
// datasets is at most eps. An RDP *curve* is eps at each order of a grid. Curves
// compose by addition (Mironov 2017, Proposition 1) and convert to (epsilon, delta)-DP
// under the same adjacency as the curve.
#pragma once

#include <string>
#include <vector>

namespace dptrain::privacy {

enum class RdpConversion {
  // Balle, Barthe, Gaboardi, Hsu & Sato (AISTATS 2020), Theorem 21 (also Asoodeh et al.
  // 2020): eps = rdp + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1). The default.
  Improved,
  // Mironov (2017), Proposition 3: eps = rdp + ln(1/delta) / (alpha - 1).
  Classic,
};

// "improved" | "classic"; anything else throws Error(InvalidParameter).
RdpConversion parse_rdp_conversion(const std::string& name);
std::string rdp_conversion_name(RdpConversion conversion);

// The default grid of orders: the integers 2..64 and 64 + 16k up to 20000 (1309 orders).
// Integer orders have an exact closed form (the binomial sum of Mironov, Talwar & Zhang
// 2019); the large ones are needed for small epsilon at small delta, where the best order
// is in the thousands: at infinite noise epsilon is still ln(1/delta)/(alpha_max - 1)
// (rdp_order_floor), e.g. 0.081 at delta = 1e-9 with orders up to 256.
std::vector<double> default_rdp_orders();

// The classic conversion's epsilon at zero RDP, ln(1/delta)/(alpha_max - 1): no amount of
// noise certifies less on a grid whose largest order is alpha_max.
double rdp_order_floor(double largest_order, double delta);

// Throws Error(InvalidParameter) unless orders is non-empty, every order is finite,
// > 1 and <= kMaxRdpOrder.
inline constexpr double kMaxRdpOrder = 100000;
void validate_rdp_orders(const std::vector<double>& orders);

// epsilon of (alpha, rdp)-RDP as (epsilon, delta)-DP at one order (clamped at 0).
double rdp_to_dp_epsilon_at(double order, double rdp, double delta, RdpConversion conversion);

struct RdpEpsilon {
  double epsilon;        // min over the grid
  double optimal_order;  // the order attaining it
};

// The best (epsilon, delta)-DP guarantee over the grid. rdp[i] belongs to orders[i].
RdpEpsilon rdp_to_dp(const std::vector<double>& orders, const std::vector<double>& rdp, double delta,
                     RdpConversion conversion = RdpConversion::Improved);

// Composition: the order-wise sum of curves on the same grid.
std::vector<double> compose_rdp(const std::vector<std::vector<double>>& curves);

}  // namespace dptrain::privacy
