#include "core/engine/model_details.h"

namespace dptrain {

nlohmann::json data_facts(const TrainingConfig& c) {
  nlohmann::json facts = {{"source", c.source},
                          {"rows", c.rows},
                          {"dim", c.dim},
                          {"classes", c.classes},
                          {"classes_from_data", c.classes_from_data}};
  if (c.read_in_place) facts["read"] = "in place, one snapshot, no copy";
  if (c.unordered_copy) facts["read"] = "copy without shuffle (order-free run)";
  return facts;
}

std::string randomness_note(bool seeded, const std::string& what) {
  if (seeded) return "seeded (reproducible, NOT private: for tests only)";
  return "libsodium CSPRNG (ChaCha20 keyed from the OS)" + (what.empty() ? std::string() : ": " + what);
}

void add_seed_and_warnings(Model& m, const TrainingConfig& c, const std::vector<std::string>& warnings) {
  if (c.seed) m.details["seed"] = *c.seed;
  if (!warnings.empty()) m.details["warnings"] = warnings;
}

}  // namespace dptrain
