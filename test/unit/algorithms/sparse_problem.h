// A test problem of the full-gradient algorithms (P-FW, DP-AGD): labels from
// the sparse model w* = (3, -2, 0, 0, 0, 0) with 5% flipped, x uniform in
// [-0.4, 0.4]^6 (so ||x|| <= 1). The Bayes rate is 95%, the majority 50%.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/engine/in_memory.h"
#include "core/model.h"

namespace dptrain::test {

// Positive when 3 x_0 - 2 x_1 > threshold (0: balanced; 0.9: about 1 in 5 positive), 5% of labels flipped.
inline InMemoryData sparse_problem(int n, std::uint64_t seed, double threshold = 0) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-0.4, 0.4);
  std::bernoulli_distribution flip(0.05);
  InMemoryData t;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(6);
    for (double& v : x) v = u(g);
    const bool positive = 3 * x[0] - 2 * x[1] > threshold;
    t.x.push_back(x);
    t.y.push_back(positive != flip(g) ? 1.0 : 0.0);
  }
  return t;
}

// Accuracy of a binary model (class 1 when w . x > 0) on labels 0/1.
inline double binary_accuracy(const Model& m, const InMemoryData& t) {
  int correct = 0;
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    double z = 0;
    for (int j = 0; j < m.dim(); ++j) z += m.weights(0, j) * t.x[i][j];
    correct += (z > 0) == (t.y[i] == 1.0);
  }
  return static_cast<double>(correct) / static_cast<double>(t.x.size());
}

}  // namespace dptrain::test
