#include "core/algorithms/opdisc_start.h"

#include <cmath>
#include <cstdint>
#include <random>

namespace dptrain::opdisc {
namespace {

// Random restarts of the search (beyond k = 0 and the noise's direction).
constexpr int kRandomRestarts = 8;
constexpr std::uint64_t kSeed = 20200713;  // fixed: the start is not part of the mechanism

// The search state: k, every group's score k.x_g, and the objective's parts
// (errors, <eta_{1..d}, k>, ||k||^2), updated incrementally per move.
class Search {
 public:
  Search(const GroupedRows& data, int bound, int norm_squared, const std::vector<double>& eta)
      : data_(data), bound_(bound), K_(norm_squared), eta_(eta), root_k_(std::sqrt(static_cast<double>(norm_squared))),
        of_feature_(static_cast<std::size_t>(data.dim)) {
    for (std::size_t g = 0; g < data.groups.size(); ++g)
      for (int j : data.groups[g].ones) of_feature_[static_cast<std::size_t>(j)].push_back(g);
    member_.assign(data.groups.size(), 0);
    for (std::size_t g = 0; g < data.groups.size(); ++g)
      for (int j : data.groups[g].ones) member_[g] |= 1u << j;
  }

  void reset(const std::vector<int>& k) {
    k_ = k;
    score_.assign(data_.groups.size(), 0);
    errors_ = 0;
    linear_ = 0;
    squared_ = 0;
    for (std::size_t g = 0; g < data_.groups.size(); ++g) {
      for (int j : data_.groups[g].ones) score_[g] += k_[static_cast<std::size_t>(j)];
      errors_ += err(g, score_[g]);
    }
    for (std::size_t j = 0; j < k_.size(); ++j) {
      linear_ += eta_[j] * k_[j];
      squared_ += static_cast<long>(k_[j]) * k_[j];
    }
  }

  double value() const { return value_of(errors_, linear_, squared_); }
  const std::vector<int>& point() const { return k_; }

  // Descends until no single-coordinate or paired +-1 move improves.
  void descend() {
    for (bool improved = true; improved;) {
      improved = false;
      for (int j = 0; j < data_.dim; ++j) improved = best_single(j) || improved;
      for (int i = 0; i < data_.dim; ++i)
        for (int j = 0; j < data_.dim; ++j)
          if (i != j) improved = try_pair(i, j) || improved;
    }
  }

 private:
  double err(std::size_t g, long score) const {
    const Group& x = data_.groups[g];
    return static_cast<double>(score >= 0 ? x.negatives : x.positives);
  }
  double value_of(double errors, double linear, long squared) const {
    return errors - linear / root_k_ - eta_.back() * std::sqrt(1.0 - static_cast<double>(squared) / K_);
  }

  // Moves k_j to the value that improves the objective most (if any).
  bool best_single(int j) {
    const int old = k_[static_cast<std::size_t>(j)];
    const long base_sq = squared_ - static_cast<long>(old) * old;
    double best = value() - 1e-9;
    int best_v = old;
    for (int v = -bound_; v <= bound_; ++v) {
      if (v == old || base_sq + static_cast<long>(v) * v > K_) continue;
      double errors = errors_;
      for (std::size_t g : of_feature_[static_cast<std::size_t>(j)]) errors += err(g, score_[g] + v - old) - err(g, score_[g]);
      const double o = value_of(errors, linear_ + eta_[static_cast<std::size_t>(j)] * (v - old), base_sq + static_cast<long>(v) * v);
      if (o < best) {
        best = o;
        best_v = v;
      }
    }
    if (best_v == old) return false;
    apply(j, best_v - old);
    return true;
  }

  // k_i + 1, k_j - 1, if that stays on the grid and improves.
  bool try_pair(int i, int j) {
    const int ki = k_[static_cast<std::size_t>(i)], kj = k_[static_cast<std::size_t>(j)];
    if (ki + 1 > bound_ || kj - 1 < -bound_) return false;
    const long sq = squared_ + 2L * ki + 1 - 2L * kj + 1;
    if (sq > K_) return false;
    double errors = errors_;
    const std::uint32_t mi = 1u << i, mj = 1u << j;
    for (std::size_t g : of_feature_[static_cast<std::size_t>(i)]) {
      const long change = 1 - ((member_[g] & mj) ? 1 : 0);
      if (change != 0) errors += err(g, score_[g] + change) - err(g, score_[g]);
    }
    for (std::size_t g : of_feature_[static_cast<std::size_t>(j)])
      if (!(member_[g] & mi)) errors += err(g, score_[g] - 1) - err(g, score_[g]);
    const double o =
        value_of(errors, linear_ + eta_[static_cast<std::size_t>(i)] - eta_[static_cast<std::size_t>(j)], sq);
    if (!(o < value() - 1e-9)) return false;
    apply(i, 1);
    apply(j, -1);
    return true;
  }

  void apply(int j, int delta) {
    auto& kj = k_[static_cast<std::size_t>(j)];
    for (std::size_t g : of_feature_[static_cast<std::size_t>(j)]) {
      errors_ += err(g, score_[g] + delta) - err(g, score_[g]);
      score_[g] += delta;
    }
    linear_ += eta_[static_cast<std::size_t>(j)] * delta;
    squared_ += 2L * kj * delta + static_cast<long>(delta) * delta;
    kj += delta;
  }

  const GroupedRows& data_;
  int bound_, K_;
  const std::vector<double>& eta_;
  double root_k_;
  std::vector<std::vector<std::size_t>> of_feature_;  // the groups with x_j = 1, per feature j
  std::vector<std::uint32_t> member_;                  // x_g as a bit set (d <= 30)
  std::vector<int> k_;
  std::vector<long> score_;
  double errors_ = 0, linear_ = 0;
  long squared_ = 0;
};

// round(c u) for the largest c with the point still on the grid.
std::vector<int> round_direction(const std::vector<double>& u, int bound, int K) {
  std::vector<int> best(u.size(), 0);
  for (double c = 0.05; c < 100; c *= 1.15) {
    std::vector<int> k(u.size());
    long sq = 0;
    for (std::size_t j = 0; j < u.size(); ++j) {
      const long v = std::lround(c * u[j]);
      k[j] = static_cast<int>(std::max<long>(-bound, std::min<long>(bound, v)));
      sq += static_cast<long>(k[j]) * k[j];
    }
    if (sq > K) break;
    best = k;
  }
  return best;
}

}  // namespace

std::vector<int> local_search_start(const GroupedRows& data, int bound, int norm_squared,
                                    const std::vector<double>& eta) {
  const std::size_t d = static_cast<std::size_t>(data.dim);
  if (data.dim > 32) return std::vector<int>(d, 0);  // the search's bit sets; the plan allows d <= 30
  Search s(data, bound, norm_squared, eta);
  std::vector<std::vector<int>> starts = {std::vector<int>(d, 0)};
  double noise = 0;
  for (std::size_t j = 0; j < d; ++j) noise += std::fabs(eta[j]);
  if (noise > 0) starts.push_back(round_direction(std::vector<double>(eta.begin(), eta.begin() + static_cast<long>(d)), bound, norm_squared));
  std::mt19937_64 gen(kSeed);
  std::uniform_int_distribution<int> value(-bound, bound);
  for (int r = 0; r < kRandomRestarts; ++r) {
    std::vector<int> k(d);
    long sq = 0;
    for (std::size_t j = 0; j < d; ++j) {
      int v = value(gen);
      if (sq + static_cast<long>(v) * v > norm_squared) v = 0;
      k[j] = v;
      sq += static_cast<long>(v) * v;
    }
    starts.push_back(k);
  }
  std::vector<int> best;
  double best_value = 0;
  for (const std::vector<int>& k : starts) {
    s.reset(k);
    s.descend();
    if (best.empty() || s.value() < best_value) {
      best = s.point();
      best_value = s.value();
    }
  }
  return best;
}

}  // namespace dptrain::opdisc
