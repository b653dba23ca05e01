// Runs permutation SGD in memory exactly as the engine does (one epoch_state
// per epoch, rows fed in the order of a given permutation, the partial batch
// flushed at the end of the epoch, the update counter carried by the
// controller as k * ceil(m/b)), for tests that compare runs on neighbouring
// datasets under the same permutations.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/sgd/epoch_state.h"

namespace dptrain::test {

struct Rows {
  int dim = 0;
  std::vector<std::vector<double>> x;
  std::vector<double> y;  // -1/+1 (binary) or class index (one-vs-all)
};

// A random point of R^d with norm uniform in [0, max_norm): a row (rows
// beyond the feature bound are clipped by the engine).
inline std::vector<double> random_point(std::mt19937_64& gen, int d, double max_norm) {
  std::normal_distribution<double> normal;
  std::vector<double> x(d);
  double sq = 0;
  for (double& v : x) {
    v = normal(gen);
    sq += v * v;
  }
  const double r = std::uniform_real_distribution<double>(0.0, max_norm)(gen);
  for (double& v : x) v *= r / std::sqrt(sq);
  return x;
}

// Returns the K*d model the run releases: the last iterate, or the running
// average of all iterates when config.averaging is set.
inline std::vector<double> run_psgd(const epoch_state::EpochConfig& config, const Rows& data,
                                    const std::vector<std::vector<int>>& permutations) {
  namespace es = epoch_state;
  const std::size_t n = static_cast<std::size_t>(config.dim) * config.models;
  const std::int64_t m = static_cast<std::int64_t>(data.x.size());
  const std::uint64_t U = static_cast<std::uint64_t>((m + config.batch_size - 1) / config.batch_size);
  std::vector<double> w(n, 0.0), avg(n, 0.0);
  std::uint64_t updates = 0, averaged = 0;
  for (const std::vector<int>& order : permutations) {
    std::vector<double> s =
        es::make_state(config, w.data(), updates, config.averaging ? avg.data() : nullptr, averaged);
    for (int i : order) es::add_row(s.data(), data.x[i].data(), data.dim, data.y[i]);
    es::flush(s.data());
    updates += U;
    if (es::updates(s.data()) != updates) throw std::logic_error("the epoch did not make ceil(m/b) updates");
    std::copy(es::weights(s.data()), es::weights(s.data()) + n, w.begin());
    if (config.averaging) {
      std::copy(es::average(s.data()), es::average(s.data()) + n, avg.begin());
      averaged = es::averaged(s.data());
    }
  }
  return config.averaging ? avg : w;
}

}  // namespace dptrain::test
