#include "cli_hints.h"

#include <regex>

namespace dptrain::client {
namespace {

std::string flag_name(std::string name) {
  if (name == "source") return "table";
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

// ARRAY['no', 'yes'] -> no,yes (the CLI's --classes takes a comma-separated list).
std::string comma_list(const std::string& array_literal) {
  std::string out;
  for (char c : array_literal.substr(6, array_literal.size() - 7))
    if (c != '\'' && c != ' ') out += c;
  return out;
}

// name => value, where value is '…' (kept quoted if it is JSON), a word, or "...".
std::string rewrite_named_arguments(const std::string& s) {
  static const std::regex arg(R"(\b([a-z][a-z_]*) => (ARRAY\[[^\]]*\]|'[^']*'|\.\.\.|[A-Za-z0-9_.+\-/]+))");
  std::string out;
  auto it = std::sregex_iterator(s.begin(), s.end(), arg);
  std::size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    std::string value = m[2].str();
    // features => ARRAY['a', 'b'] (separate columns) is the CLI's --columns a,b; --features names one array column.
    const bool columns = m[1].str() == "features" && value.rfind("ARRAY[", 0) == 0;
    const std::string flag = columns ? "--columns" : "--" + flag_name(m[1].str());
    std::string sentence_end;  // "epochs => 1." ends a sentence; the dot is not part of the value
    while (value != "..." && value.size() > 1 && value.back() == '.') {
      value.pop_back();
      sentence_end += '.';
    }
    out.append(s, last, static_cast<std::size_t>(m.position(0)) - last);
    if (value.rfind("ARRAY[", 0) == 0) {
      out += flag + " " + comma_list(value);
    } else if (value == "true") {
      out += flag;
    } else if (value == "false") {
      out += "--no-" + flag.substr(2);
    } else {
      const bool quoted = value.size() >= 2 && value.front() == '\'';
      if (quoted && value[1] != '{' && value[1] != '[') value = value.substr(1, value.size() - 2);
      out += flag + " " + value;
    }
    out += sentence_end;
    last = static_cast<std::size_t>(m.position(0) + m.length(0));
  }
  out.append(s, last, std::string::npos);
  return out;
}

std::string rewrite_functions_and_names(std::string s) {
  static const std::pair<std::regex, const char*> rules[] = {
      {std::regex(R"(\bdp_train \(or dptrain train\))"), "dptrain train"},
      {std::regex(R"(\bdp_train \(dptrain train --server\))"), "dptrain train --server"},
      {std::regex(R"(\bdp_train\b)"), "dptrain train"},
      {std::regex(R"(\bdp_tune\b)"), "dptrain tune"},
      {std::regex(R"(\bdp_evaluate\b)"), "dptrain eval"},
      {std::regex(R"(\bdp_predict\b)"), "dptrain predict"},
      {std::regex(R"((^|[^-\w.])(learning_rate|batch_size|huber_h)\b)"), "$1--$2"},
  };
  for (const auto& [re, replacement] : rules) s = std::regex_replace(s, re, replacement);
  static const std::regex underscore_flag(R"(--(learning|batch|huber)_(rate|size|h)\b)");
  return std::regex_replace(s, underscore_flag, "--$1-$2");
}

}  // namespace

std::string cli_syntax(const std::string& sql_hint) {
  return rewrite_functions_and_names(rewrite_named_arguments(sql_hint));
}

}  // namespace dptrain::client
