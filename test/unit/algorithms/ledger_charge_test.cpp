#include "core/algorithms/ledger_charge.h"

#include <gtest/gtest.h>

#include "core/algorithms/algorithm.h"
#include "core/error.h"

namespace dptrain {
namespace {

TEST(LedgerCharge, EveryAlgorithmStatesItsAdjacency) {
  // add/remove-one: the RDP account of DP-SGD (Mironov et al. 2019) and DP-AGD's
  // zCDP (Lee & Kifer 2018, Def. 3.1); every other private algorithm is
  // analysed with n public under replace-one.
  for (const char* name : {"dpsgd", "psgd", "dpmomentum", "dpadam", "dpadamwosm", "adadp", "dpagd"})
    EXPECT_EQ(make_algorithm(name)->adjacency(), privacy::Adjacency::AddRemoveOne) << name;
  for (const char* name : {"bolton", "scs13", "bst14", "amp", "pfw", "opdisc", "optimum", "none"})
    EXPECT_EQ(make_algorithm(name)->adjacency(), privacy::Adjacency::ReplaceOne) << name;
}

TEST(LedgerCharge, ReplaceOneRunsPayTheirOwnGuarantee) {
  const LedgerCharge c = ledger_charge("bolton", 0.5, 1e-6);
  EXPECT_EQ(c.epsilon, 0.5);
  EXPECT_EQ(c.delta, 1e-6);
  EXPECT_FALSE(c.converted);
}

TEST(LedgerCharge, AddRemoveRunsPayTheGroupPrivacyOfTwoRows) {
  // DP-SGD at (1, 1e-5): (2, (1 + e) 1e-5) = (2, 3.7182818285e-5).
  LedgerCharge c = ledger_charge("dpsgd", 1.0, 1e-5);
  EXPECT_EQ(c.epsilon, 2.0);
  EXPECT_NEAR(c.delta, 3.7182818285e-5, 1e-15);
  EXPECT_TRUE(c.converted);
  // DP-AGD at (0.1, 1e-8): (0.2, (1 + e^0.1) 1e-8) = (0.2, 2.1051709181e-8), e^0.1 = 1.1051709181.
  c = ledger_charge("dpagd", 0.1, 1e-8);
  EXPECT_DOUBLE_EQ(c.epsilon, 0.2);
  EXPECT_NEAR(c.delta, 2.1051709181e-8, 1e-18);
  // A delta the conversion pushes past 1 is charged as 1, which no budget admits.
  EXPECT_EQ(ledger_charge("dpadam", 30.0, 1e-6).delta, 1.0);
}

TEST(LedgerCharge, RefusesWhatWasNotChecked) {
  EXPECT_THROW(ledger_charge("nosuch", 1.0, 1e-6), Error);
  EXPECT_THROW(ledger_charge("dpsgd", -1.0, 1e-6), Error);
  EXPECT_THROW(ledger_charge("dpsgd", 1.0, 1.0), Error);
}

TEST(LedgerCharge, TheModelRecordsWhatWasCharged) {
  const nlohmann::json j = ledger_charge_json(ledger_charge("dpsgd", 1.0, 1e-5));
  EXPECT_EQ(j.at("adjacency"), "replace-one");
  EXPECT_EQ(j.at("epsilon"), 2.0);
  EXPECT_NE(j.at("rule").get<std::string>().find("group privacy"), std::string::npos);
}

}  // namespace
}  // namespace dptrain
