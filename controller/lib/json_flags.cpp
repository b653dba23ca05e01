#include "json_flags.h"

#include <nlohmann/json.hpp>

namespace dptrain::client {

std::string json_object_problem(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range.406 for a number beyond double range ('1e400')
    std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line 1, ..."
    const std::size_t tag_end = what.find("] ");
    if (what.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos) what.erase(0, tag_end + 2);
    return "not valid JSON: " + what;
  }
  if (!j.is_object()) return "must be a JSON object in braces, e.g. '{}', not " + j.dump();
  return "";
}

CLI::Validator json_object_flag(bool empty_means_default) {
  return CLI::Validator(
      [empty_means_default](const std::string& text) {
        return empty_means_default && text.empty() ? std::string() : json_object_problem(text);
      },
      "JSON", "");
}

}  // namespace dptrain::client
