// A privacy budget amount (the ledger's exact numeric) in the details of the
// DP001 errors (sql/40_ledger.sql, "privacy budget exceeded"): its exact text
// when that is short -- every ordinary amount ("1.6", "0.000001"), printed as
// it always was -- else the short form of parameter_checks.h's short_number
// with 15 significant digits (a 15-digit decimal reads back as the same
// double): a cap of 1e308 printed its 309 digits, a delta of 1e-300 its 302.
#pragma once

#include <cstddef>
#include <string>

namespace dptrain::privacy {

// The longest exact text printed as it is: a float8's 15 digits as a numeric
// after up to 15 zeros ("0.00000264872127070013", a delta the details print).
inline constexpr std::size_t kBudgetTextExactLength = 32;

// `exact`: the amount as PostgreSQL's numeric prints it (positional, no exponent).
std::string budget_text(const std::string& exact);

}  // namespace dptrain::privacy
