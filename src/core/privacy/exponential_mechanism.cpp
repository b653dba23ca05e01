#include "core/privacy/exponential_mechanism.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

#include "core/error.h"

namespace dptrain::privacy {
namespace {

// exp(-epsilon (score_i - min score) / (2 sensitivity)): the best candidate gets 1.
std::vector<double> relative_weights(const std::vector<double>& scores, double epsilon, double sensitivity) {
  if (scores.empty()) fail(ErrorKind::InvalidParameter, "the exponential mechanism needs at least one candidate");
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    fail(ErrorKind::InvalidParameter, "epsilon of the exponential mechanism must be a positive finite number");
  if (!(sensitivity > 0) || !std::isfinite(sensitivity))
    fail(ErrorKind::InvalidParameter, "the score sensitivity must be a positive finite number");
  for (double s : scores)
    if (!std::isfinite(s)) fail(ErrorKind::InvalidParameter, "exponential mechanism scores must be finite");
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  require_exponential_mechanism_range(epsilon, sensitivity, *hi - *lo);
  const double best = *lo;
  std::vector<double> w(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) w[i] = std::exp(-epsilon * (scores[i] - best) / (2 * sensitivity));
  return w;
}

std::string show(double v) {
  std::ostringstream out;
  out << std::setprecision(6) << v;
  return out.str();
}

}  // namespace

void require_exponential_mechanism_range(double epsilon, double sensitivity, double score_range) {
  const char* hint = "Use an epsilon and a score sensitivity of ordinary size (e.g. epsilon 0.01 .. 100).";
  if (!std::isfinite(2 * sensitivity))
    fail(ErrorKind::InvalidParameter, "the score sensitivity of the exponential mechanism is too large for a double",
         "2 * sensitivity overflows (sensitivity = " + show(sensitivity) + ").", hint);
  if (!std::isfinite(epsilon * score_range))
    fail(ErrorKind::InvalidParameter, "epsilon times the score range of the exponential mechanism overflows",
         "epsilon = " + show(epsilon) + ", score range = " + show(score_range) +
             ": the weights exp(-epsilon * (score - best) / (2 sensitivity)) are not representable.",
         hint);
}

std::vector<double> exponential_mechanism_probabilities(const std::vector<double>& scores, double epsilon,
                                                        double sensitivity) {
  std::vector<double> w = relative_weights(scores, epsilon, sensitivity);
  double total = 0;
  for (double v : w) total += v;  // >= 1: the best candidate's weight
  for (double& v : w) v /= total;
  return w;
}

std::size_t exponential_mechanism(const std::vector<double>& scores, double epsilon, double sensitivity,
                                  RandomSource& rng) {
  const std::vector<double> w = relative_weights(scores, epsilon, sensitivity);
  double total = 0;
  for (double v : w) total += v;
  const double u = rng.uniform_open01() * total;
  double cumulative = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    cumulative += w[i];
    if (u < cumulative) return i;
  }
  // Rounding can leave u a hair above the last partial sum: the last
  // candidate with positive weight takes that sliver.
  std::size_t last = w.size() - 1;
  while (last > 0 && w[last] == 0) --last;
  return last;
}

std::vector<double> monotone_exponential_mechanism_probabilities(const std::vector<double>& scores, double epsilon,
                                                                 double sensitivity) {
  return exponential_mechanism_probabilities(scores, epsilon, sensitivity / 2);
}

std::size_t monotone_exponential_mechanism(const std::vector<double>& scores, double epsilon, double sensitivity,
                                           RandomSource& rng) {
  return exponential_mechanism(scores, epsilon, sensitivity / 2, rng);
}

}  // namespace dptrain::privacy
