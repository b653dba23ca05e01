#include "model_name_flag.h"

#include <cstdio>

namespace dptrain::client {

std::string model_name_problem(const std::string& name) {
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const bool c1 = c == 0xc2 && i + 1 < name.size() && static_cast<unsigned char>(name[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(name[i + 1]) <= 0x9f;
    if (c < 0x20 || c == 0x7f || c1) {
      char what[96];
      if (c1)
        std::snprintf(what, sizeof(what), "control character U+%04X at byte %zu",
                      static_cast<unsigned>(static_cast<unsigned char>(name[i + 1])), i + 1);
      else
        std::snprintf(what, sizeof(what), "control character 0x%02x at byte %zu", static_cast<unsigned>(c), i + 1);
      return std::string("a model name must not contain control characters (") + what + ")";
    }
  }
  return "";
}

CLI::Validator model_name_flag() {
  return CLI::Validator([](const std::string& text) { return model_name_problem(text); }, "NAME", "");
}

}  // namespace dptrain::client
