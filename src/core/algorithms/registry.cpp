#include <algorithm>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/amp.h"
#include "core/algorithms/bolton.h"
#include "core/algorithms/bst14.h"
#include "core/algorithms/dpagd.h"
#include "core/algorithms/dpsgd.h"
#include "core/algorithms/non_private.h"
#include "core/algorithms/opdisc.h"
#include "core/algorithms/optimum_run.h"
#include "core/algorithms/pfw.h"
#include "core/algorithms/scs13.h"
#include "core/error.h"
#include "core/joined.h"

namespace dptrain {
namespace {

// Implemented algorithms, and those of the roadmap that are not built yet.
const std::vector<std::string> kImplemented = {"none",  "bolton", "scs13",      "bst14",  "amp",        "optimum", "pfw", "dpagd",
                                               "dpsgd", "psgd",   "dpmomentum", "dpadam", "dpadamwosm", "adadp", "opdisc"};
const std::vector<std::string> kPlanned = {};

}  // namespace

std::vector<std::string> known_algorithms() {
  std::vector<std::string> v = kImplemented;
  v.insert(v.end(), kPlanned.begin(), kPlanned.end());
  return v;
}

bool non_private_algorithm(const std::string& name) { return name == "none" || name == "optimum"; }

std::vector<std::string> algorithms_that(const std::function<bool(const Algorithm&)>& holds) {
  std::vector<std::string> v;
  for (const std::string& name : kImplemented)
    if (holds(*make_algorithm(name))) v.push_back(name);
  return v;
}

std::unique_ptr<Algorithm> make_algorithm(const std::string& name) {
  if (name == "none") return std::make_unique<NonPrivateSgd>();
  if (name == "bolton") return std::make_unique<Bolton>();
  if (name == "scs13") return std::make_unique<Scs13>();
  if (name == "bst14") return std::make_unique<Bst14>();
  if (name == "amp") return std::make_unique<Amp>();
  if (name == "optimum") return std::make_unique<Optimum>();
  if (name == "opdisc") return std::make_unique<Opdisc>();
  if (name == "pfw") return std::make_unique<Pfw>();
  if (name == "dpagd") return std::make_unique<Dpagd>();
  for (const std::string& member : dpsgd_family())
    if (name == member) return std::make_unique<DpSgdFamily>(name);
  if (std::find(kPlanned.begin(), kPlanned.end(), name) != kPlanned.end())
    fail(ErrorKind::NotImplemented, "algorithm \"" + name + "\" is not implemented yet", {},
         "Implemented algorithms: " + joined(kImplemented) + ".");
  fail(ErrorKind::InvalidParameter, "unknown algorithm \"" + name + "\"", {},
       "Known algorithms: " + joined(known_algorithms()) + ".");
}

}  // namespace dptrain
