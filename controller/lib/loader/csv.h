// Splitting delimited text lines (CSV, UCI ", "-separated files) and
// recognizing numbers. PostgreSQL-free; used by csv_source.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dptrain::loader {

struct CsvDialect {
  char delimiter = ',';
  // Lines whose first character is one of these are skipped (UCI files
  // start with "|1x3 Cross validator"). Blank lines are always skipped.
  std::string comment_prefixes = "|";
};

bool is_skipped_line(std::string_view line, const CsvDialect& dialect);

// Splits `line` into fields. Unquoted fields are trimmed of blanks (Adult
// separates with ", "); a field in double quotes keeps its blanks and may
// contain the delimiter and "" for a quote. Views point into `line` or, for
// quoted fields with escapes, into `scratch` (cleared first). Throws
// dptrain::Error(InvalidData) for an unterminated quote or text after a
// closing quote; `where` ("file:line") goes into the message.
void split_fields(std::string_view line, const CsvDialect& dialect, std::vector<std::string_view>& fields,
                  std::deque<std::string>& scratch, const std::string& where);

// A finite decimal number ("3", "-0.5", "+1", "1e-3"); nullopt otherwise
// (including "nan", "inf", "0x10", "1,5", "").
std::optional<double> parse_number(std::string_view s);

// A label as the UCI files write it: one trailing '.' removed (adult.test
// writes ">50K." where adult.data writes ">50K"; KDD Cup writes "normal.").
std::string_view normalize_label(std::string_view s);

}  // namespace dptrain::loader
