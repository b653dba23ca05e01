#include "core/privacy/report_noisy_min.h"

#include <cmath>

#include "core/error.h"
#include "core/privacy/parameter_checks.h"
#include "core/privacy/samplers.h"

namespace dptrain::privacy {

std::size_t report_noisy_min(const std::vector<double>& scores, NoisyMinNoise noise, double scale,
                             RandomSource& rng) {
  if (scores.empty()) bad_parameter("report-noisy-min needs at least one candidate");
  require_positive(scale, "the noisy-min scale");
  std::size_t best = 0;
  double best_value = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (!std::isfinite(scores[i])) bad_parameter("report-noisy-min scores must be finite");
    const double noisy =
        noise == NoisyMinNoise::Laplace ? scores[i] + laplace(rng, scale) : scores[i] - exponential(rng, scale);
    if (i == 0 || noisy < best_value) {
      best = i;
      best_value = noisy;
    }
  }
  return best;
}

double noisy_min_scale(double sensitivity, double epsilon, bool monotone) {
  require_positive(sensitivity, "the score sensitivity");
  require_positive(epsilon, "epsilon of report-noisy-min");
  const double scale = (monotone ? 1.0 : 2.0) * sensitivity / epsilon;
  // A huge sensitivity over a tiny epsilon overflows, or leaves a scale whose Laplace or
  // exponential draws round to inf: refused here, where the plans compute it (before the charge),
  // rather than by the sampler during the run.
  require_drawable_laplace(scale);
  return scale;
}

}  // namespace dptrain::privacy
