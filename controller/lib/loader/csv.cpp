#include "loader/csv.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "core/error.h"

namespace dptrain::loader {
namespace {

bool is_blank(char c, char delimiter) { return (c == ' ' || c == '\t' || c == '\r') && c != delimiter; }

std::string_view trim(std::string_view s, char delimiter) {
  while (!s.empty() && is_blank(s.front(), delimiter)) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back(), delimiter)) s.remove_suffix(1);
  return s;
}

}  // namespace

bool is_skipped_line(std::string_view line, const CsvDialect& dialect) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  if (i == line.size()) return true;  // blank
  return !dialect.comment_prefixes.empty() && dialect.comment_prefixes.find(line[0]) != std::string::npos;
}

void split_fields(std::string_view line, const CsvDialect& dialect, std::vector<std::string_view>& fields,
                  std::deque<std::string>& scratch, const std::string& where) {
  fields.clear();
  scratch.clear();
  const char delim = dialect.delimiter;
  std::size_t i = 0;
  const std::size_t n = line.size();
  for (;;) {
    // Skip leading blanks to see whether the field is quoted.
    std::size_t j = i;
    while (j < n && is_blank(line[j], delim)) ++j;
    if (j < n && line[j] == '"') {
      std::size_t k = j + 1;
      std::string* unescaped = nullptr;
      std::size_t piece = k;
      for (;;) {
        if (k >= n)
          fail(ErrorKind::InvalidData, "unterminated quoted field at " + where, {},
               "Close every \"...\" field; write a quote inside one as \"\".");
        if (line[k] == '"') {
          if (k + 1 < n && line[k + 1] == '"') {  // escaped quote
            if (!unescaped) unescaped = &scratch.emplace_back();
            unescaped->append(line.substr(piece, k + 1 - piece));
            k += 2;
            piece = k;
            continue;
          }
          break;
        }
        ++k;
      }
      std::string_view value = line.substr(piece, k - piece);
      if (unescaped) {
        unescaped->append(value);
        value = *unescaped;
      } else {
        value = line.substr(j + 1, k - j - 1);
      }
      fields.push_back(value);
      k += 1;  // closing quote
      while (k < n && is_blank(line[k], delim)) ++k;
      if (k == n) return;
      if (line[k] != delim)
        fail(ErrorKind::InvalidData, "unexpected text after a closing quote at " + where, {},
             "A quoted field must be followed by the delimiter or the end of the line.");
      i = k + 1;
      continue;
    }
    const std::size_t end = line.find(delim, i);
    if (end == std::string_view::npos) {
      fields.push_back(trim(line.substr(i), delim));
      return;
    }
    fields.push_back(trim(line.substr(i, end - i), delim));
    i = end + 1;
  }
}

std::optional<double> parse_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') {
    s.remove_prefix(1);
    if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  }
  // from_chars accepts "inf"/"nan" and would accept hex only with a flag;
  // insist on a digit or a point at the start (after a sign).
  const std::size_t first = (s.front() == '-') ? 1 : 0;
  if (first >= s.size() || !(std::isdigit(static_cast<unsigned char>(s[first])) || s[first] == '.'))
    return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string_view normalize_label(std::string_view s) {
  if (s.size() > 1 && s.back() == '.') s.remove_suffix(1);
  return s;
}

}  // namespace dptrain::loader
