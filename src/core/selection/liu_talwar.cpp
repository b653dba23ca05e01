#include "core/selection/liu_talwar.h"

#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/privacy/messages.h"
#include "core/privacy/samplers.h"

namespace dptrain::selection {
namespace {

using privacy::show;

void require_gamma_delta2(double gamma, double delta2) {
  if (!(gamma > 0 && gamma <= 1))
    fail(ErrorKind::InvalidParameter, "the stopping probability gamma must be in (0, 1]", "gamma = " + show(gamma),
         "Mohapatra et al. 2022 uses gamma = 1 / (number of grid points)");
  if (!(delta2 > 0 && delta2 < 1))
    fail(ErrorKind::InvalidParameter, "delta2 must be in (0, 1)", "delta2 = " + show(delta2));
}

}  // namespace

std::int64_t liu_talwar_max_candidates(double gamma, double delta2) {
  require_gamma_delta2(gamma, delta2);
  const double t = std::ceil(std::log(1 / delta2) / gamma);
  if (!(t <= 1e9)) fail(ErrorKind::ProgramLimit, "too many Liu-Talwar candidates", "T = " + show(t),
                             "Raise gamma (the stopping probability; default 1 / grid points).");
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(t));
}

privacy::DpGuarantee liu_talwar_total(double eps1, double delta1, double gamma, double delta2) {
  if (!(std::isfinite(eps1) && eps1 > 0)) fail(ErrorKind::InvalidParameter, "candidate epsilon must be > 0");
  if (!(delta1 >= 0 && delta1 < 1)) fail(ErrorKind::InvalidParameter, "candidate delta must be in [0, 1)");
  const double t = static_cast<double>(liu_talwar_max_candidates(gamma, delta2));
  const double root = std::sqrt(2 * delta1);
  return {3 * eps1 + 3 * root, root * t + delta2};
}

LiuTalwarBudget liu_talwar_budget(double epsilon, double delta, double gamma, double delta2_share) {
  if (!(std::isfinite(epsilon) && epsilon > 0)) fail(ErrorKind::InvalidParameter, "epsilon must be > 0");
  if (!(delta > 0 && delta < 1)) fail(ErrorKind::InvalidParameter, "delta must be in (0, 1)");
  if (!(delta2_share > 0 && delta2_share < 1)) fail(ErrorKind::InvalidParameter, "delta2_share must be in (0, 1)");
  LiuTalwarBudget b;
  b.gamma = gamma;
  b.delta2 = delta2_share * delta;
  b.max_candidates = liu_talwar_max_candidates(gamma, b.delta2);
  const double root = (delta - b.delta2) / static_cast<double>(b.max_candidates);  // sqrt(2 delta1)
  b.candidate_delta = root * root / 2;
  // delta1 = ((delta - delta2) / T)^2 / 2 squares an already small share: delta = 1e-300 gave
  // delta1 = 0 (the candidates then ran without delta, or an algorithm needing delta > 0
  // refused "delta" with no word of the split), delta = 1e-152 a subnormal delta1 = 1e-310
  // that calibrations refuse. Any delta1 below the smallest normal double is refused here,
  // naming the split, before the charge: delta1 >= DBL_MIN needs sqrt(2 delta1) = (delta -
  // delta2) / T >= sqrt(2 DBL_MIN), i.e. delta >= T sqrt(2 DBL_MIN) / (1 - delta2_share).
  if (!(b.candidate_delta >= std::numeric_limits<double>::min()))
    fail(ErrorKind::InvalidParameter,
         "the split of delta over the Liu-Talwar candidates is too small to represent",
         "Each of up to T = " + std::to_string(b.max_candidates) + " candidates gets delta1 = ((delta - delta2) / T)^2 / 2 = " +
             show(b.candidate_delta) + " (delta = " + show(delta) + ", delta2 = " + show(b.delta2) +
             "), below the smallest normal double " + show(std::numeric_limits<double>::min()) + ".",
         "Use delta >= " +
             show(static_cast<double>(b.max_candidates) * std::sqrt(2 * std::numeric_limits<double>::min()) /
                  (1 - delta2_share)) +
             " (Liu & Talwar 2019, Thm 3.4: the search's delta is sqrt(2 delta1) T + delta2), or a larger gamma "
             "(fewer candidates T).");
  b.candidate_epsilon = (epsilon - 3 * root) / 3;
  if (!(b.candidate_epsilon > 0))
    fail(ErrorKind::InvalidParameter, "the Liu-Talwar search leaves no epsilon for its candidates",
         "epsilon = " + show(epsilon) + ", 3 sqrt(2 delta1) = " + show(3 * root),
         "Use a larger epsilon or a smaller delta (sqrt(2 delta1) = (delta - delta2) / T).");
  b.total = liu_talwar_total(b.candidate_epsilon, b.candidate_delta, gamma, b.delta2);
  return b;
}

RandomStopping::RandomStopping(double gamma, std::int64_t max_candidates, std::size_t grid_size)
    : gamma_(gamma), max_candidates_(max_candidates), grid_size_(grid_size) {
  if (!(gamma > 0 && gamma <= 1)) fail(ErrorKind::InvalidParameter, "gamma must be in (0, 1]");
  if (max_candidates < 1) fail(ErrorKind::InvalidParameter, "at least one candidate");
  if (grid_size == 0) fail(ErrorKind::InvalidParameter, "the hyperparameter grid is empty");
}

std::optional<std::size_t> RandomStopping::next(privacy::RandomSource& rng) {
  if (pending_) fail(ErrorKind::Internal, "Liu-Talwar: record() the running candidate first");
  if (stopped_) return std::nullopt;
  pending_ = true;
  return static_cast<std::size_t>(rng.uniform_below(grid_size_));
}

void RandomStopping::record(double score, privacy::RandomSource& rng) {
  if (!pending_) fail(ErrorKind::Internal, "Liu-Talwar: no candidate is running");
  if (std::isnan(score)) fail(ErrorKind::Internal, "Liu-Talwar: NaN score");
  pending_ = false;
  if (best_run_ < 0 || score > best_score_) {
    best_run_ = runs_;
    best_score_ = score;
  }
  ++runs_;
  // Flip the gamma-biased coin; the cap T ends the search in any case.
  if (rng.uniform_open01() < gamma_ || runs_ >= max_candidates_) stopped_ = true;
}

double noisy_count_score(std::int64_t correct, double epsilon, privacy::RandomSource& rng) {
  return static_cast<double>(correct) + privacy::laplace(rng, 1 / epsilon);
}

}  // namespace dptrain::selection
