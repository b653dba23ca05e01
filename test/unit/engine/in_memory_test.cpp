#include "core/engine/in_memory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/engine/epoch_run.h"
#include "core/sgd/epoch_state.h"

namespace dptrain {
namespace {

InMemoryData small_table() {
  InMemoryData t;
  for (int i = 0; i < 23; ++i) {
    t.x.push_back({std::sin(i * 0.9), std::cos(i * 1.7) * 0.5});
    t.y.push_back((i * 7) % 3 == 0 ? 1.0 : 0.0);
  }
  return t;
}

TrainingConfig none_config(const InMemoryData& t) {
  TrainingConfig c;
  c.algorithm = "none";
  c.epochs = 3;
  c.batch_size = 5;  // 23 rows: four full batches and a partial one per epoch
  c.learning_rate = 0.3;
  c.rows = t.rows();
  c.dim = t.dim();
  c.classes = {"neg", "pos"};
  return c;
}

std::vector<std::int64_t> identity(std::int64_t m) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(m));
  std::iota(v.begin(), v.end(), std::int64_t{0});
  return v;
}

TEST(InMemoryTraining, SameModelAsTheEpochAggregateFedByHand) {
  const InMemoryData t = small_table();
  std::vector<std::int64_t> order = identity(t.rows());
  std::swap(order[0], order[22]);
  std::swap(order[3], order[7]);
  EpochRun a(none_config(t));
  const Model m = drive_in_memory(a, t, order);
  EXPECT_EQ(a.epochs_done(), 3);

  // The same epochs by hand: every pass is an SGD epoch whose input is the
  // state the aggregate starts from.
  EpochRun b(none_config(t));
  int passes = 0;
  while (std::optional<Pass> p = b.next()) {
    ASSERT_EQ(p->kind, PassKind::SgdEpoch);
    std::vector<double> s = p->input;
    for (std::int64_t i : order) epoch_state::add_row(s.data(), t.x[i].data(), 2, t.y[i]);
    epoch_state::flush(s.data());
    b.accept(s.data(), s.size());
    ++passes;
  }
  EXPECT_EQ(passes, 3);
  EXPECT_EQ(m.weights, b.release(0.0).weights);

  // The order matters (SGD is not permutation invariant), and the default is the table order.
  EpochRun c(none_config(t)), d(none_config(t));
  const Model in_table_order = drive_in_memory(c, t);
  EXPECT_NE(in_table_order.weights, m.weights);
  EXPECT_EQ(in_table_order.weights, drive_in_memory(d, t, identity(t.rows())).weights);
}

TEST(InMemoryTraining, TrainInMemoryIsRunInMemoryWithASeededShuffle) {
  const InMemoryData t = small_table();
  TrainingConfig c = none_config(t);
  c.reshuffle = true;
  const Model a = train_in_memory(c, t, 5);
  EXPECT_EQ(a.weights, train_in_memory(c, t, 5).weights);
  EXPECT_NE(a.weights, train_in_memory(c, t, 6).weights);
  std::vector<std::int64_t> order = identity(t.rows());
  std::mt19937_64 shuffler(5);
  std::shuffle(order.begin(), order.end(), shuffler);
  EpochRun tr(c);
  EXPECT_EQ(a.weights, drive_in_memory(tr, t, order, &shuffler).weights);
}

TEST(InMemoryTraining, ReshuffleNeedsAGenerator) {
  const InMemoryData t = small_table();
  TrainingConfig c = none_config(t);
  c.reshuffle = true;
  EpochRun no_rng(c);
  EXPECT_THROW(drive_in_memory(no_rng, t), Error);
  std::mt19937_64 g1(1), g2(1), g3(2);
  EpochRun a(c), b(c), d(c), fixed(none_config(t));
  const Model ma = drive_in_memory(a, t, {}, &g1);
  EXPECT_EQ(ma.weights, drive_in_memory(b, t, {}, &g2).weights);
  EXPECT_NE(ma.weights, drive_in_memory(d, t, {}, &g3).weights);
  EXPECT_NE(ma.weights, drive_in_memory(fixed, t).weights);  // epochs 2 and 3 saw other orders
}

TEST(InMemoryTraining, RejectsOrdersThatAreNotPermutationsAndOtherData) {
  const InMemoryData t = small_table();
  EpochRun a(none_config(t)), b(none_config(t)), c(none_config(t));
  EXPECT_THROW(drive_in_memory(a, t, {0, 1, 2}), Error);
  std::vector<std::int64_t> bad = identity(t.rows());
  bad[4] = 99;
  EXPECT_THROW(drive_in_memory(b, t, bad), Error);
  InMemoryData shorter = t;
  shorter.x.pop_back();
  shorter.y.pop_back();
  EXPECT_THROW(drive_in_memory(c, shorter), Error);  // planned for 23 rows
}

}  // namespace
}  // namespace dptrain
