// The in-memory distributed epoch (src/core/sgd/sharded_epoch.h): one shard
// is the sequential epoch, several shards give the count-weighted average
// of the shards' own epochs, and the update counter advances by the largest
// shard's ceil(rows / b).
#include "core/sgd/sharded_epoch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dptrain::epoch_state {
namespace {

struct Fixture {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  EpochConfig config;
  Fixture() {
    for (int i = 0; i < 11; ++i) {
      x.push_back({std::sin(i * 0.7), std::cos(i * 1.3), 0.25});
      y.push_back(std::sin(i * 0.7) + 0.5 * std::cos(i * 1.3) > 0 ? 1.0 : -1.0);
    }
    config.dim = 3;
    config.batch_size = 3;
    config.schedule.kind = ScheduleKind::Constant;
    config.schedule.eta = 0.3;
  }
  ShardedRows rows() const { return {&x, &y}; }
  std::vector<double> start(std::uint64_t updates = 0) const { return make_state(config, nullptr, updates); }
  // The sequential epoch over `order`, flushed.
  std::vector<double> sequential(const std::vector<int>& order, std::uint64_t updates = 0) const {
    std::vector<double> s = start(updates);
    for (int i : order) add_row(s.data(), x[i].data(), 3, y[i]);
    flush(s.data());
    return s;
  }
};

TEST(ShardedEpoch, OneShardIsTheSequentialEpoch) {
  const Fixture f;
  const std::vector<int> order = {4, 2, 9, 0, 1, 10, 3, 8, 5, 7, 6};
  const std::vector<double> a = sharded_epoch(f.start(7), f.rows(), {order});
  const std::vector<double> b = f.sequential(order, 7);
  EXPECT_EQ(a, b);
  EXPECT_EQ(updates(a.data()), 7u + 4u);  // ceil(11 / 3)
}

TEST(ShardedEpoch, ShardsAreAveragedWithTheirRowCounts) {
  const Fixture f;
  const std::vector<std::vector<int>> shards = {{0, 3, 6, 9, 1, 4, 7}, {}, {10, 2, 5, 8}};
  const std::vector<double> got = sharded_epoch(f.start(), f.rows(), shards);
  const std::vector<double> a = f.sequential(shards[0]), c = f.sequential(shards[2]);
  for (int j = 0; j < 3; ++j)
    EXPECT_NEAR(weights(got.data())[j], (7.0 * weights(a.data())[j] + 4.0 * weights(c.data())[j]) / 11.0, 1e-15);
  EXPECT_EQ(rows(got.data()), 11u);
  EXPECT_EQ(updates(got.data()), 3u);  // max(ceil(7/3), 0, ceil(4/3))
}

TEST(ShardedEpoch, NoRowsLeavesTheModel) {
  const Fixture f;
  std::vector<double> w = {0.1, -0.2, 0.3};
  const std::vector<double> s = make_state(f.config, w.data(), 5);
  const std::vector<double> got = sharded_epoch(s, f.rows(), {{}, {}});
  EXPECT_EQ(std::vector<double>(weights(got.data()), weights(got.data()) + 3), w);
  EXPECT_EQ(updates(got.data()), 5u);
}

}  // namespace
}  // namespace dptrain::epoch_state
