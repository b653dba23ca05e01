#include "core/optim/solver_settings.h"

#include "core/error.h"

namespace dptrain::optim {

std::string method_name(Method m) { return m == Method::Newton ? "newton" : "lbfgs"; }

nlohmann::json SolverSettings::to_json() const {
  nlohmann::json j = {{"method", method_name(method)}, {"max_evaluations", max_evaluations}};
  if (method == Method::Lbfgs) j["memory"] = lbfgs_memory;
  return j;
}

SolverSettings solver_settings(const nlohmann::json& options, int dim, int newton_max_dim) {
  SolverSettings s;
  std::string name = "auto";
  if (options.contains("optimizer")) {
    const auto& o = options["optimizer"];
    if (!o.is_string() || (o != "auto" && o != "newton" && o != "lbfgs"))
      fail(ErrorKind::InvalidParameter, "options.optimizer must be 'auto', 'newton' or 'lbfgs'", {},
           "'auto' (default) uses Newton's method up to " + std::to_string(newton_max_dim) +
               " features and L-BFGS above.");
    name = o.get<std::string>();
  }
  s.method = name == "newton" || (name == "auto" && dim <= newton_max_dim) ? Method::Newton : Method::Lbfgs;
  s.max_evaluations =
      s.method == Method::Newton ? SolverSettings::kDefaultNewtonEvaluations : SolverSettings::kDefaultLbfgsEvaluations;
  if (options.contains("max_evaluations")) {
    const auto& m = options["max_evaluations"];
    if (!m.is_number_integer() || m.get<long long>() < 1 || m.get<long long>() > 1000000)
      fail(ErrorKind::InvalidParameter, "options.max_evaluations must be an integer in [1, 1000000]", {},
           "Each evaluation is one pass over the table.");
    s.max_evaluations = m.get<int>();
  }
  return s;
}

}  // namespace dptrain::optim
