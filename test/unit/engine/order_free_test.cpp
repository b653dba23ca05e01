// Algorithm::order_free decides that dp_train copies the rows without the
// shuffle (docs/performance.md, "Order-free copies"). A wrong "yes" would
// silently drop the random order that bolt-on, SCS13, BST14 and the DP-SGD
// family rest on; so the set of order-free algorithms is pinned here, and
// each of them is shown to release the same model (same noise seed) from
// two different physical orders of the rows, while bolt-on does not.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "core/algorithms/algorithm.h"
#include "core/engine/in_memory.h"

namespace dptrain {
namespace {

TEST(OrderFree, ExactlyTheAlgorithmsOfSumsAndCounts) {
  // amp, optimum, pfw, dpagd: GradientLoss / Evaluate passes only (exact
  // sums); opdisc: one GroupedRows pass (counts per feature vector).
  const std::set<std::string> order_free = {"amp", "optimum", "pfw", "dpagd", "opdisc"};
  for (const std::string& name : known_algorithms()) {
    const std::unique_ptr<Algorithm> a = make_algorithm(name);
    EXPECT_EQ(a->order_free(), order_free.count(name) == 1) << name;
    // Reading in place (exact sums only) implies order-free, never the reverse.
    if (a->reads_sums_only()) {
      EXPECT_TRUE(a->order_free()) << name;
    }
  }
}

InMemoryData table(bool binary) {
  InMemoryData t;
  for (int i = 0; i < 200; ++i) {
    const double a = std::sin(i * 0.7), b = std::cos(i * 1.3);
    t.x.push_back(binary ? std::vector<double>{a > 0 ? 1.0 : 0.0, b > 0 ? 1.0 : 0.0} : std::vector<double>{a, b});
    t.y.push_back(a + 0.5 * b + 0.3 * std::sin(i * 2.9) > 0 ? 1.0 : 0.0);
  }
  return t;
}

TrainingConfig config(const std::string& algorithm) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.classes = {"neg", "pos"};
  c.seed = 7;  // the same noise in both runs
  c.intercept = false;
  if (algorithm == "optimum") {
    c.lambda = 1e-3;
  } else {
    c.epsilon = 1;
    c.delta = 1e-6;
  }
  if (algorithm == "pfw") c.radius = 10;
  if (algorithm == "bolton") {
    c.delta.reset();
    c.epochs = 2;
    c.batch_size = 10;
  }
  return c;
}

// The largest difference between the weights of two models.
double gap(const Model& a, const Model& b) { return (a.weights - b.weights).cwiseAbs().maxCoeff(); }

TEST(OrderFree, SameModelFromAnyOrderOfTheRows) {
  for (const std::string name : {"amp", "optimum", "pfw", "dpagd", "opdisc"}) {
    const InMemoryData t = table(name == "opdisc");
    // train_in_memory's third argument draws the physical order of the rows.
    const Model a = train_in_memory(config(name), t, 1), b = train_in_memory(config(name), t, 2);
    EXPECT_LT(gap(a, b), 1e-9) << name;
  }
}

TEST(OrderFree, BoltOnDependsOnTheOrder) {
  // The check above can fail: an order-dependent algorithm, same noise seed,
  // another order of the rows, another model.
  const InMemoryData t = table(false);
  const Model a = train_in_memory(config("bolton"), t, 1), b = train_in_memory(config("bolton"), t, 2);
  EXPECT_GT(gap(a, b), 1e-6);
}

}  // namespace
}  // namespace dptrain
