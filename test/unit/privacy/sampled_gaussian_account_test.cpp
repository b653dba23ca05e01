// The privacy record of a DP-SGD run (sampled_gaussian_account.h): JSON round trip, order
// runs, and the recorded epsilon recomputed independently.
#include "core/privacy/sampled_gaussian_account.h"

#include <gtest/gtest.h>

#include "core/dpsgd/plan.h"
#include "core/error.h"
#include "rdp_reference.h"

namespace dptrain::privacy {
namespace {

TEST(SampledGaussianAccount, OrdersAsExactRuns) {
  EXPECT_EQ(orders_as_runs(default_rdp_orders()), nlohmann::json::parse("[[2,64,1],[80,20000,16]]"));
  EXPECT_EQ(orders_from_runs(orders_as_runs(default_rdp_orders())), default_rdp_orders());
  const std::vector<double> odd = {1.5, 1.25, 1.75, 2, 3, 5, 7, 100, 2};  // sorted, duplicates dropped
  const nlohmann::json runs = orders_as_runs(odd);
  EXPECT_EQ(runs, nlohmann::json::parse("[[1.25,2,0.25],[3,7,2],[100,100,0]]"));
  EXPECT_EQ(orders_from_runs(runs), (std::vector<double>{1.25, 1.5, 1.75, 2, 3, 5, 7, 100}));
  EXPECT_THROW(orders_from_runs(nlohmann::json::parse("[[2,1,1]]")), Error);
  EXPECT_THROW(orders_from_runs(nlohmann::json::parse("[[2,3]]")), Error);
  EXPECT_THROW(orders_from_runs(nlohmann::json::parse("[[1,3,1]]")), Error);  // order 1 is invalid
}

TEST(SampledGaussianAccount, JsonRoundTrip) {
  const SampledGaussianAccount a = account_sampled_gaussian(0.01, 1.3, 0.5, 5000, 1e-6);
  const nlohmann::json j = account_json(a);
  EXPECT_EQ(j.at("noise_std"), 0.65);
  EXPECT_EQ(j.at("conversion"), "improved");
  EXPECT_EQ(j.at("adjacency"), "add-remove");
  EXPECT_EQ(j.at("at_largest_order"), false);
  const SampledGaussianAccount b = account_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(b.epsilon, a.epsilon);
  EXPECT_EQ(b.rdp.orders, a.rdp.orders);
  EXPECT_EQ(account_json(b), j);
  nlohmann::json broken = j;
  broken.erase("steps");
  EXPECT_THROW(account_from_json(broken), Error);
  EXPECT_THROW(account_sampled_gaussian(0.01, 1.3, 0, 5000, 1e-6), Error);
}

TEST(SampledGaussianAccount, FlagsAnOptimumAtTheTopOfTheGrid) {
  // The section-13 floor example on orders 2..512: the optimum is order 512.
  RdpOptions o;
  o.orders.clear();
  for (int a = 2; a <= 512; ++a) o.orders.push_back(a);
  o.conversion = RdpConversion::Classic;
  const double delta = 1.0 / (36176.0 * 36176.0);
  EXPECT_TRUE(account_sampled_gaussian(50.0 / 36176, 80.1, 1, 1000, delta, o).at_largest_order());
  EXPECT_FALSE(account_sampled_gaussian(50.0 / 36176, 80.1, 1, 1000, delta).at_largest_order());
}

TEST(SampledGaussianAccount, RecordedEpsilonOfAPlannedModelMatchesAnIndependentComputation) {
  // A DP-SGD plan on Adult's shape (n = 30162, lot 250, T = 10000, eps = 1, delta = 1e-5),
  // its JSON record read back, and epsilon recomputed from the recorded (q, sigma, T, delta,
  // orders, conversion) by a direct long-double binomial sum over every order
  // (rdp_reference.h): agreement to 1e-6 relative.
  dpsgd::DpSgdRequest r;
  r.algorithm = "dpadam";
  r.rows = 30162;
  r.dim = 104;
  r.expected_lot = 250;
  r.steps = 10000;
  r.clip_norm = 1;
  r.epsilon = 1.0;
  r.delta = 1e-5;
  const nlohmann::json record = dpsgd::plan_dpsgd(r).metadata.at("privacy");
  const SampledGaussianAccount a = account_from_json(record);
  const double independent = reference::epsilon_long_double(
      a.sampling_rate, a.noise_multiplier, a.steps, a.delta, a.rdp.orders, a.rdp.conversion == RdpConversion::Improved);
  EXPECT_NEAR(record.at("epsilon").get<double>() / independent, 1.0, 1e-6) << independent;
  EXPECT_LE(record.at("epsilon").get<double>(), 1.0);
}

}  // namespace
}  // namespace dptrain::privacy
