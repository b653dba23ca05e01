#include "core/privacy/distributed_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/privacy/parameter_checks.h"

namespace dptrain::privacy::distributed {
namespace {

// The step sizes eta_t of a schedule and the expansiveness rho_t of its
// updates (Bolt-on Lemmas 1-2), with the two quantities the recursion needs:
//   product(p, q)     = prod_{u=p}^{q} rho_u           (1 when p > q)
//   worst(lo, hi, e)  = max_{lo <= tau <= hi} eta_tau product(tau + 1, e)
// i.e. how much a differing update at tau still weighs at update e, at the
// worst position tau of one pass of the row. Closed forms per schedule.
class Steps {
 public:
  Steps(const StepSchedule& s, const LossConstants& k) : s_(s) {
    switch (s.kind) {
      case ScheduleKind::Constant:
        require_positive(s.eta, "the learning rate");
        if (k.strong_convexity > 0) {
          // Lemma 2: (1 - eta gamma)-expansive for eta <= 1/beta.
          require_strongly_convex_step(s.eta, k.smoothness);
          rho_ = 1.0 - s.eta * k.strong_convexity;
          kind_ = Kind::StronglyConvexConstant;
        } else {
          // Lemma 1: 1-expansive for eta <= 2/beta.
          require_convex_step(s.eta, k.smoothness);
          kind_ = Kind::Convex;
        }
        break;
      case ScheduleKind::Decreasing:
      case ScheduleKind::Sqrt:
        // eta_t = 2/(beta (...)) <= 2/beta_schedule <= 2/beta_loss: 1-expansive.
        if (!(s.beta >= k.smoothness)) fail(ErrorKind::Internal, "the schedule's beta is below the loss smoothness");
        if (!(s.offset >= 0) || !std::isfinite(s.offset)) bad_parameter("the schedule offset m^c must be non-negative");
        kind_ = Kind::Convex;
        break;
      case ScheduleKind::StronglyConvex:
        // eta_t = min(1/beta, 1/(gamma t)) <= 1/beta: (1 - eta_t gamma)-expansive;
        // the schedule's gamma is at most the loss's, so its rho is conservative.
        if (!(s.beta >= k.smoothness) || !(s.gamma > 0) || s.gamma > k.strong_convexity)
          fail(ErrorKind::Internal, "the strongly convex schedule does not match the loss constants");
        t0_ = std::ceil(s.beta / s.gamma);  // first t with gamma t >= beta
        kind_ = Kind::StronglyConvexDecreasing;
        break;
      case ScheduleKind::InverseSqrt:
        bad_parameter("the inverse_sqrt schedule has no Bolt-on sensitivity bound",
            "Use schedule constant, decreasing or sqrt (lambda = 0), or strongly_convex (lambda > 0).");
    }
  }

  bool strongly_convex() const { return kind_ != Kind::Convex; }

  double product(double p, double q) const {
    if (p > q) return 1.0;
    switch (kind_) {
      case Kind::Convex: return 1.0;
      case Kind::StronglyConvexConstant: return std::pow(rho_, q - p + 1.0);
      case Kind::StronglyConvexDecreasing: {
        // u < t0: eta = 1/beta, rho = 1 - gamma/beta; u >= t0: eta = 1/(gamma u),
        // rho = 1 - 1/u, and prod_{u=a}^{q} (u - 1)/u = (a - 1)/q telescopes.
        double r = 1.0;
        const double flat_end = std::min(q, t0_ - 1.0);
        if (p <= flat_end) r *= std::pow(1.0 - s_.gamma / s_.beta, flat_end - p + 1.0);
        const double a = std::max(p, t0_);
        if (a <= q) r *= (a - 1.0) / q;
        return r;
      }
    }
    return 1.0;
  }

  double worst(double lo, double hi, double end) const {
    switch (kind_) {
      case Kind::Convex: return s_.at(static_cast<std::uint64_t>(lo));  // non-increasing: the first update
      case Kind::StronglyConvexConstant: return s_.eta * product(hi + 1.0, end);  // the last update
      case Kind::StronglyConvexDecreasing: {
        // Before t0 the weight grows with tau (same step, fewer contractions):
        // the latest such tau. From t0 on it is (1/(gamma tau)) (tau / end),
        // the same for every tau.
        double w = 0.0;
        if (lo < t0_) {
          const double tau = std::min(hi, t0_ - 1.0);
          w = std::max(w, s_.at(static_cast<std::uint64_t>(tau)) * product(tau + 1.0, end));
        }
        if (hi >= t0_) {
          const double tau = std::max(lo, t0_);
          w = std::max(w, s_.at(static_cast<std::uint64_t>(tau)) * product(tau + 1.0, end));
        }
        return w;
      }
    }
    return 0.0;
  }

 private:
  enum class Kind { Convex, StronglyConvexConstant, StronglyConvexDecreasing };
  StepSchedule s_;
  Kind kind_ = Kind::Convex;
  double rho_ = 1.0;
  double t0_ = 1.0;
};

// delta_k of the recursion in the header.
double recursion(const Steps& steps, double lipschitz, const ShardedShape& shape) {
  const double b = static_cast<double>(shape.batch_size);
  const double U = static_cast<double>(shape.updates_per_epoch());
  double delta = 0.0;
  for (int e = 0; e < shape.epochs; ++e) {
    const double te = e * U;
    double contraction = 0.0, injection = 0.0;
    for (std::size_t s = 0; s < shape.shard_rows.size(); ++s) {
      const std::int64_t ns = shape.shard_rows[s];
      if (ns == 0) continue;
      const double end = te + static_cast<double>(shape.shard_updates(s));
      double inject = 0.0;
      // Pass p holds stream rows p n_s .. (p+1) n_s - 1; row q is in update
      // floor(q / b) + 1 of the shard (batches may straddle two passes).
      for (int p = 0; p < shape.local_passes; ++p) {
        const double lo = te + static_cast<double>((p * ns) / shape.batch_size) + 1.0;
        const double hi = te + static_cast<double>(((p + 1) * ns - 1) / shape.batch_size) + 1.0;
        inject += steps.worst(lo, hi, end);
      }
      inject *= 2.0 * lipschitz / b;
      contraction += shape.weight(s) * steps.product(te + 1.0, end);
      injection = std::max(injection, shape.weight(s) * inject);
    }
    delta = contraction * delta + injection;
  }
  return delta;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::int64_t ShardedShape::rows() const {
  std::int64_t n = 0;
  for (std::int64_t r : shard_rows) n += r;
  return n;
}

std::int64_t ShardedShape::shard_updates(std::size_t shard) const {
  return ceil_div(static_cast<std::int64_t>(local_passes) * shard_rows.at(shard), batch_size);
}

std::int64_t ShardedShape::updates_per_epoch() const {
  std::int64_t u = 0;
  for (std::size_t s = 0; s < shard_rows.size(); ++s) u = std::max(u, shard_updates(s));
  return u;
}

double ShardedShape::weight(std::size_t shard) const {
  return static_cast<double>(shard_rows.at(shard)) / static_cast<double>(rows());
}

void validate(const ShardedShape& shape) {
  if (shape.shard_rows.empty()) bad_parameter("the distributed sensitivity needs at least one shard");
  constexpr std::int64_t kMaxRows = std::int64_t{1} << 50;  // keeps P n_s and every counter exact
  std::int64_t n = 0;
  for (std::int64_t r : shape.shard_rows) {
    if (r < 0 || r > kMaxRows) bad_parameter("a shard row count is negative or too large");
    n += r;
    if (n > kMaxRows) bad_parameter("too many rows");
  }
  if (n < 1) bad_parameter("the distributed sensitivity needs at least one row");
  if (shape.batch_size < 1) bad_parameter("the sensitivity needs batch_size >= 1");
  if (shape.epochs < 1) bad_parameter("the sensitivity needs at least one epoch");
  if (shape.local_passes < 1 || shape.local_passes > 1000) bad_parameter("local passes must be between 1 and 1000");
}

bolton::Bound sensitivity(const StepSchedule& schedule, const LossConstants& k, const ShardedShape& shape) {
  validate(shape);
  require_positive(k.lipschitz, "the Lipschitz constant");
  require_positive(k.smoothness, "the smoothness constant");
  if (k.strong_convexity > k.smoothness)
    bad_parameter("the strong convexity (" + short_number(k.strong_convexity) + ") cannot exceed the smoothness (" +
        short_number(k.smoothness) + ")");
  const Steps steps(schedule, k);
  bolton::Bound r;
  r.sensitivity = recursion(steps, k.lipschitz, shape);
  r.strongly_convex = steps.strongly_convex();
  r.rule =
      "per-shard permutation SGD + averaging with weights n_s/n (docs/distributed.md): growth recursion of "
      "Bolt-on Lemmas 1-4 over epochs, delta' = (sum_s n_s/n prod rho) delta + max_s (n_s/n)(2L/b) sum_passes "
      "max eta prod rho, schedule " +
      schedule_name(schedule.kind) + ", update counter advancing by max_s ceil(P n_s/b) per epoch";
  return r;
}

double convex_constant_step(double L, double beta, double eta, const ShardedShape& shape) {
  validate(shape);
  require_positive(L, "the Lipschitz constant");
  require_positive(beta, "the smoothness constant");
  require_positive(eta, "the learning rate");
  require_convex_step(eta, beta);
  double max_weight = 0.0;
  for (std::size_t s = 0; s < shape.shard_rows.size(); ++s) max_weight = std::max(max_weight, shape.weight(s));
  return shape.epochs * shape.local_passes * 2.0 * L * eta / static_cast<double>(shape.batch_size) * max_weight;
}

SequentialEquivalent sequential_equivalent(double eta, double beta, const ShardedShape& shape) {
  validate(shape);
  require_positive(eta, "the learning rate");
  require_positive(beta, "the smoothness constant");
  require_convex_step(eta, beta);
  const std::int64_t largest = *std::max_element(shape.shard_rows.begin(), shape.shard_rows.end());
  const double scaled = eta * static_cast<double>(shape.rows()) / static_cast<double>(largest);
  SequentialEquivalent r;
  // The smallest P with scaled / P <= 2/beta; the division is checked, not
  // trusted, so that rounding never gives a step above 2/beta.
  r.local_passes = std::max(1, static_cast<int>(std::ceil(scaled * beta / 2.0)));
  while (scaled / r.local_passes > 2.0 / beta) ++r.local_passes;
  if (r.local_passes > 1000) bad_parameter("the step needs more than 1000 local passes per epoch", "Use fewer shards.");
  r.eta = scaled / r.local_passes;
  return r;
}

}  // namespace dptrain::privacy::distributed
