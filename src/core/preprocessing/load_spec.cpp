#include "core/preprocessing/load_spec.h"

#include <string>

#include "core/error.h"

namespace dptrain::preprocessing {
namespace {

// The entries of spec[key]: an object of per-column objects, or absent.
const nlohmann::json& columns(const nlohmann::json& spec, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  const auto it = spec.find(key);
  if (it == spec.end()) return empty;
  if (!it->is_object())
    fail(ErrorKind::InvalidParameter, std::string("malformed load spec: \"") + key + "\" is not an object");
  for (const auto& [name, col] : it->items())
    if (!col.is_object())
      fail(ErrorKind::InvalidParameter, "malformed load spec: column \"" + name + "\" is not an object");
  return *it;
}

// An origin is public only when it says "user"; anything else (the loader's
// "training data" / "data (train and test)", a missing or unknown value)
// counts as read from the data.
bool from_user(const nlohmann::json& col, const char* key) {
  const auto it = col.find(key);
  return it != col.end() && it->is_string() && it->get<std::string>() == "user";
}

}  // namespace

bool load_spec_reads_data(const nlohmann::json& spec) {
  if (!spec.is_object()) fail(ErrorKind::InvalidParameter, "malformed load spec: not a JSON object");
  for (const auto& [name, col] : columns(spec, "numeric").items())
    if (!from_user(col, "bounds")) return true;
  for (const auto& [name, col] : columns(spec, "categorical").items())
    if (!from_user(col, "list")) return true;
  return false;
}

nlohmann::json withheld_load_spec(const nlohmann::json& spec) {
  nlohmann::json out = {{"withheld", true}, {"from_data", load_spec_reads_data(spec)}};
  const auto format = spec.find("format");
  if (format != spec.end() && format->is_string()) out["format"] = *format;
  return out;
}

}  // namespace dptrain::preprocessing
