#include <algorithm>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/bolton.h"
#include "core/algorithms/non_private.h"
#include "core/error.h"

namespace dptrain {
namespace {

// Algorithms of the project's roadmap that are not implemented yet.
const std::vector<std::string> kPlanned = {"scs13", "bst14", "amp", "psgd", "pfw",
                                           "dpagd", "dpsgd", "dpadam", "opdisc"};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::vector<std::string> known_algorithms() {
  std::vector<std::string> v = {"none", "bolton"};
  v.insert(v.end(), kPlanned.begin(), kPlanned.end());
  return v;
}

std::unique_ptr<Algorithm> make_algorithm(const std::string& name) {
  if (name == "none") return std::make_unique<NonPrivateSgd>();
  if (name == "bolton") return std::make_unique<Bolton>();
  if (std::find(kPlanned.begin(), kPlanned.end(), name) != kPlanned.end())
    fail(ErrorKind::NotImplemented, "algorithm \"" + name + "\" is not implemented yet", {},
         "Implemented algorithms: none, bolton.");
  fail(ErrorKind::InvalidParameter, "unknown algorithm \"" + name + "\"", {},
       "Known algorithms: " + joined(known_algorithms()) + ".");
}

}  // namespace dptrain
