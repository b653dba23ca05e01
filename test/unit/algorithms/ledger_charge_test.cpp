#include "core/algorithms/ledger_charge.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(LedgerCharge, AmountsAreRoundedUpToTheFifteenDigitsTheLedgerKeeps) {
  // PostgreSQL casts the float8 amount to numeric with the NEAREST 15
  // significant digits; ledger_digits_up gives the double of the next 15-digit
  // decimal at or above the amount, which the cast keeps exactly.
  EXPECT_EQ(ledger_digits_up(0.5), 0.5);  // already exact: unchanged
  EXPECT_EQ(ledger_digits_up(1e-6), 1e-6);
  EXPECT_EQ(ledger_digits_up(0.0), 0.0);
  // 2 x 0.4999999999584446 = 0.9999999999168892: to nearest 0.999999999916889
  // (below), up 0.999999999916890.
  EXPECT_EQ(ledger_digits_up(0.9999999999168892), 0.99999999991689);
  // (1 + e^0.3) 1e-6 = 2.3498588075760030e-6: to nearest 2.34985880757600e-6 (below), up ...601.
  EXPECT_EQ(ledger_digits_up(2.349858807576003e-6), 2.34985880757601e-6);
  // the carry: 9.99999999999999|1 -> 10
  EXPECT_EQ(ledger_digits_up(9.999999999999991), 10.0);
  // The controller's DP-SGD model at eps_m = 0.4999999999584446 (dptrain train, ledger_charges_cli.sh).
  EXPECT_EQ(ledger_charge("dpsgd", 0.4999999999584446, 1e-6).epsilon, 0.99999999991689);
}

TEST(LedgerCharge, TheConvertedDeltaIsNeverBelowItsExactValue) {
  // DP-SGD at (1, 1e-5): (1 + e) 1e-5 = 3.71828182845904524e-5; the margin for
  // the floating-point conversion, 1 + (ln 1e5 + 1 + 4) 2^-51 = 1 + 7.33e-15,
  // gives 3.7182818284590728e-5, rounded up to 15 digits: 3.71828182845908e-5
  // (before: 3.71828182845904e-5 was kept, below the exact value).
  EXPECT_EQ(ledger_charge("dpsgd", 1.0, 1e-5).delta, 3.71828182845908e-5);
  // Against (1 + e^eps) delta in long double (64-bit mantissa: ~1e-19 relative,
  // far inside the margin), over epsilon 0.01..20 and delta 1e-3..1e-300.
  for (double eps : {0.01, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0})
    for (double delta : {1e-3, 1e-5, 1e-6, 1e-9, 1e-12, 1e-20, 1e-50, 1e-100, 1e-300}) {
      const long double exact = (1.0L + std::exp(static_cast<long double>(eps))) * static_cast<long double>(delta);
      const LedgerCharge c = ledger_charge("dpagd", eps, delta);
      EXPECT_EQ(c.epsilon, 2 * eps);
      if (exact >= 1) {
        EXPECT_EQ(c.delta, 1.0) << eps << " " << delta;
      } else {
        EXPECT_GE(static_cast<long double>(c.delta), exact) << eps << " " << delta;
        EXPECT_LE(static_cast<long double>(c.delta), exact * (1 + 1e-12L)) << eps << " " << delta;
      }
    }
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
