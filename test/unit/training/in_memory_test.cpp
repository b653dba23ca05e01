#include "core/training/in_memory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>

#include "core/error.h"
#include "core/sgd/epoch_state.h"

namespace dptrain {
namespace {

InMemoryTable small_table() {
  InMemoryTable t;
  t.dim = 2;
  for (int i = 0; i < 23; ++i) t.add({std::sin(i * 0.9), std::cos(i * 1.7) * 0.5}, (i * 7) % 3 == 0 ? 1.0 : 0.0);
  return t;
}

TrainingConfig none_config(const InMemoryTable& t) {
  TrainingConfig c;
  c.algorithm = "none";
  c.epochs = 3;
  c.batch_size = 5;  // 23 rows: four full batches and a partial one per epoch
  c.learning_rate = 0.3;
  describe_table(t, c);
  c.classes = {"neg", "pos"};
  return c;
}

std::vector<std::int64_t> identity(std::int64_t m) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(m));
  std::iota(v.begin(), v.end(), std::int64_t{0});
  return v;
}

TEST(InMemoryTraining, SameModelAsTheEpochAggregateFedByHand) {
  const InMemoryTable t = small_table();
  std::vector<std::int64_t> order = identity(t.rows());
  std::swap(order[0], order[22]);
  std::swap(order[3], order[7]);
  Trainer a(none_config(t));
  const Model m = train_in_memory(a, t, order);
  EXPECT_EQ(a.epochs_done(), 3);

  Trainer b(none_config(t));
  for (int e = 0; e < b.epochs(); ++e) {
    std::vector<double> s = b.epoch_input();
    for (std::int64_t i : order) epoch_state::add_row(s.data(), t.row(i), 2, t.labels[i]);
    epoch_state::flush(s.data());
    b.epoch_output(s.data(), s.size());
  }
  EXPECT_EQ(m.weights, b.finish(0.0).weights);

  // The order matters (SGD is not permutation invariant), and the default is the table order.
  Trainer c(none_config(t)), d(none_config(t));
  const Model in_table_order = train_in_memory(c, t);
  EXPECT_NE(in_table_order.weights, m.weights);
  EXPECT_EQ(in_table_order.weights, train_in_memory(d, t, identity(t.rows())).weights);
}

TEST(InMemoryTraining, ReshuffleNeedsARandomSourceAndIsReproducibleWithASeed) {
  const InMemoryTable t = small_table();
  TrainingConfig c = none_config(t);
  c.reshuffle = true;
  Trainer no_rng(c);
  EXPECT_THROW(train_in_memory(no_rng, t), Error);
  auto run = [&](std::uint64_t seed) {
    Trainer tr(c);
    auto rng = privacy::RandomSource::seeded(seed);
    return train_in_memory(tr, t, {}, rng.get()).weights;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
  Trainer fixed(none_config(t));
  EXPECT_NE(run(1), train_in_memory(fixed, t).weights);  // epochs 2 and 3 saw other orders
}

TEST(InMemoryTraining, RejectsOrdersThatAreNotPermutations) {
  const InMemoryTable t = small_table();
  Trainer a(none_config(t)), b(none_config(t));
  EXPECT_THROW(train_in_memory(a, t, {0, 1, 2}), Error);
  std::vector<std::int64_t> bad = identity(t.rows());
  bad[4] = 99;
  EXPECT_THROW(train_in_memory(b, t, bad), Error);
  InMemoryTable u;
  u.dim = 2;
  EXPECT_THROW(u.add({1.0}, 0.0), Error);
}

TEST(InMemoryTraining, ShuffleIsAUniformPermutation) {
  auto rng = privacy::RandomSource::seeded(42);
  std::map<std::vector<std::int64_t>, int> seen;
  const int draws = 6000;
  for (int i = 0; i < draws; ++i) {
    std::vector<std::int64_t> v = {0, 1, 2};
    shuffle(v, *rng);
    ++seen[v];
  }
  ASSERT_EQ(seen.size(), 6u);
  // Each of the 3! orders: mean 1000, sd sqrt(6000 * 1/6 * 5/6) = 28.9; 5 sd = 144.
  for (const auto& [order, count] : seen) EXPECT_NEAR(count, 1000, 144);
}

}  // namespace
}  // namespace dptrain
