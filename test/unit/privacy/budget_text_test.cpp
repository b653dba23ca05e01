// The budget amounts of the DP001 details: exact when short, else short form.
#include "core/privacy/budget_text.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using dptrain::privacy::budget_text;

TEST(BudgetText, OrdinaryAmountsKeepTheirExactText) {
  for (const char* exact : {"0", "1", "1.6", "0.000001", "0.0000009", "0.00002", "1000000000000000",
                            "0.000000000001", "0.00000264872127070013", "0.0000371828182845904",
                            "0.000000000000001234567890123456"})  // the last: 32 characters, the limit
    EXPECT_EQ(budget_text(exact), exact);
}

TEST(BudgetText, LongAmountsAreShort) {
  // A cap of 1e308 (float8 1e308 as numeric: 1 and 308 zeros).
  EXPECT_EQ(budget_text("1" + std::string(308, '0')), "1e+308");
  // float8's largest value as numeric (float8_numeric keeps 15 digits).
  EXPECT_EQ(budget_text("179769313486232" + std::string(294, '0')), "1.79769313486232e+308");
  // A delta of 1e-300: "0." then 299 zeros and a 1.
  EXPECT_EQ(budget_text("0." + std::string(299, '0') + "1"), "1e-300");
  // 33 characters: short form, 15 significant digits.
  EXPECT_EQ(budget_text("0.0000000000000012345678901234567"), "1.23456789012346e-15");
  EXPECT_EQ(budget_text("123456789012345678901234567890123"), "1.23456789012346e+32");
}

}  // namespace
