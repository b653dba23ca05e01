#include "core/privacy/adjacency.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

TEST(Adjacency, ParseAndName) {
  EXPECT_EQ(parse_adjacency("add-remove"), Adjacency::AddRemoveOne);
  EXPECT_EQ(parse_adjacency("replace-one"), Adjacency::ReplaceOne);
  EXPECT_EQ(adjacency_name(Adjacency::AddRemoveOne), "add-remove");
  EXPECT_EQ(adjacency_name(Adjacency::ReplaceOne), "replace-one");
  EXPECT_THROW(parse_adjacency("replace"), Error);
}

TEST(Adjacency, SensitivityDoubles) {
  // Sum of rows clipped to C = 3: add/remove Delta = 3, replace-one Delta = |x - x'| <= 6.
  EXPECT_EQ(replace_one_sensitivity(3.0), 6.0);
  EXPECT_THROW(replace_one_sensitivity(-1.0), Error);
}

TEST(Adjacency, DpGroupPrivacyForTwo) {
  // (0.5, 1e-6) add/remove => (1.0, (1 + e^0.5) 1e-6) = (1.0, 2.6487213e-6) replace-one.
  const DpGuarantee g = dp_add_remove_to_replace_one(0.5, 1e-6);
  EXPECT_DOUBLE_EQ(g.epsilon, 1.0);
  EXPECT_NEAR(g.delta, 2.6487212707e-6, 1e-15);
  // Pure DP stays pure: (eps, 0) => (2 eps, 0).
  EXPECT_EQ(dp_add_remove_to_replace_one(0.3, 0.0).delta, 0.0);
  EXPECT_THROW(dp_add_remove_to_replace_one(-1.0, 1e-6), Error);
  EXPECT_THROW(dp_add_remove_to_replace_one(1.0, 1.0), Error);
}

TEST(Adjacency, DpGroupPrivacyDeltaIsCappedAtOneWithoutOverflow) {
  // (1 + e^20) 1e-5 = 4.851651964e3 >= 1: a statement of nothing, returned as 1.
  EXPECT_EQ(dp_add_remove_to_replace_one(20.0, 1e-5).delta, 1.0);
  // e^1000 overflows a double; the conversion still answers (2000, 1).
  const DpGuarantee g = dp_add_remove_to_replace_one(1000.0, 1e-300);
  EXPECT_EQ(g.epsilon, 2000.0);
  EXPECT_EQ(g.delta, 1.0);
  // Just below 1: (1 + e^10) 4.5e-5 = 22027.4657948 * 4.5e-5 = 0.99123596 (e^10 = 22026.4657948).
  EXPECT_NEAR(dp_add_remove_to_replace_one(10.0, 4.5e-5).delta, 0.9912359608, 1e-9);
}

TEST(Adjacency, ZcdpGroupPrivacyForTwo) {
  // Bun-Steinke Prop. 27, k = 2: k^2 rho = 4 rho. For the Gaussian this is exact: sensitivity
  // doubles, rho = (2 Delta)^2 / (2 sigma^2) = 4 Delta^2 / (2 sigma^2).
  EXPECT_DOUBLE_EQ(zcdp_add_remove_to_replace_one(0.025), 0.1);
  EXPECT_THROW(zcdp_add_remove_to_replace_one(-0.1), Error);
}

TEST(Adjacency, RdpGroupPrivacyHalvesOrdersTriplesValues) {
  const auto out = rdp_add_remove_to_replace_one({2, 3.5, 4, 10, 64}, {0.1, 0.2, 0.3, 0.4, 0.5});
  ASSERT_EQ(out.first.size(), 3u);  // orders < 4 are dropped (Mironov 2017, Prop. 2 needs alpha >= 4)
  EXPECT_EQ(out.first, (std::vector<double>{2, 5, 32}));
  EXPECT_NEAR(out.second[0], 0.9, 1e-15);
  EXPECT_NEAR(out.second[1], 1.2, 1e-15);
  EXPECT_NEAR(out.second[2], 1.5, 1e-15);
  EXPECT_THROW(rdp_add_remove_to_replace_one({2, 3}, {0.1, 0.2}), Error);
  EXPECT_THROW(rdp_add_remove_to_replace_one({8}, {0.1, 0.2}), Error);
}

}  // namespace
}  // namespace dptrain::privacy
