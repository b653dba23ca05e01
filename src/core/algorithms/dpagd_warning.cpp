#include "core/algorithms/dpagd_warning.h"

#include <cmath>

#include "core/privacy/parameter_checks.h"

namespace dptrain {

bool dpagd_budget_went_to_refinements(const DpagdPath& path) { return path.refinements > path.iterations; }

std::optional<std::string> dpagd_refinement_warning(const DpagdSettings& s, const DpagdPath& path) {
  if (!dpagd_budget_went_to_refinements(path)) return std::nullopt;
  const long failed = path.line_searches - path.iterations;
  const double growth = path.rho_ng > 0 ? path.rho_ng_final / path.rho_ng : 0;
  const std::string times =
      growth < 100 ? privacy::short_number(growth, 3) : std::to_string(static_cast<long long>(std::llround(growth)));
  return "dpagd spent its budget on gradient refinements: " + std::to_string(failed) + " of its " +
         std::to_string(path.line_searches) + " line searches found no step and it took " +
         std::to_string(path.iterations) + (path.iterations == 1 ? " step" : " steps") + " (" +
         std::to_string(path.refinements) + " refinements, each raising the gradient's budget by 1 + gamma = " +
         privacy::short_number(1 + s.gamma) + ", to " + times +
         " times the first); the model may be no better than the majority class. The line search sees "
         "each row's loss clipped to options.loss_clip (here " +
         privacy::short_number(s.loss_clip) +
         "), which hides the misclassified rows; at large epsilon it then rejects every step. Retrain with "
         "options => '{\"loss_clip\": 2}' (measured with the logistic and Huber SVM losses) or a smaller "
         "options.alpha_max: docs/dpagd.md, \"When the budget goes to refinements\".";
}

}  // namespace dptrain
