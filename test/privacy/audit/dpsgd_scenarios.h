// Privacy audit scenarios of the DP-SGD family (TEST CODE ONLY).
//
// Add/remove-one neighbours with n fixed (n is public in dptrain): D holds the
// gradient canary (x* = 2 e_0, positive), D' the same table with the canary
// replaced by an all-zero row, whose per-example gradient is exactly 0 for a
// linear model: in every lot D' contributes what D without the canary would
// (removal), and both runs divide by the same q n. The other rows are zero on
// coordinate 0, which nothing else ever touches, so coordinate 0 of the
// released model moves only through the canary and the noise.
//
// At theta = 0 the canary's logistic gradient is -sigmoid(0) x* y = -e_0, of
// norm 1; clipped to C = 0.5 it is exactly C. With one lot (T = 1) and q = 1
// the release pair on coordinate 0 is therefore exactly the Gaussian pair
// (shift C, std sigma C) scaled by -alpha / (q n): its epsilon (the ceiling) is
// gaussian_pair_epsilon(1, sigma, delta), below the accountant's claim.
// With q < 1 and several lots the pair is a mixture (no closed-form ceiling);
// the audit then only checks the claim.
#pragma once

#include <memory>

#include "privacy_audit.h"
#include "scenarios.h"
#include "core/algorithms/dpsgd.h"
#include "core/algorithms/dpsgd_run.h"
#include "core/dpsgd/lot_state.h"

namespace dptrain::test::audit {

inline Neighbours dpsgd_neighbours(int rows = 10) {
  Neighbours n;
  for (int side = 0; side < 2; ++side) {
    InMemoryData& t = side == 0 ? n.d : n.d_prime;
    for (int i = 0; i < rows - 1; ++i) {
      // Norm-1 rows on coordinates 1, 2 only, labels alternating.
      t.x.push_back({0.0, std::cos(0.7 * i), std::sin(0.7 * i)});
      t.y.push_back(i % 2);
    }
    t.x.push_back(side == 0 ? std::vector<double>{2.0, 0.0, 0.0} : std::vector<double>{0.0, 0.0, 0.0});
    t.y.push_back(1.0);
  }
  n.canary_position = rows - 1;
  return n;
}

// A DP-SGD-family algorithm whose runs reuse one plan (planning calibrates
// sigma by bisection, ~ms; a run on the audit tables takes microseconds).
// `noise_factor` divides the noise the lots add (1 = correct; 10 = the
// BROKEN variant with sigma ten times too small, still claiming the plan's
// epsilon): the state each pass receives carries sigma C / factor, and the
// state it returns is given back its planned value, so the run itself sees
// nothing unusual.
class PlannedDpSgd : public Algorithm {
 public:
  using PlanCache = std::shared_ptr<std::shared_ptr<const dpsgd::DpSgdPlan>>;
  PlannedDpSgd(std::string name, double noise_factor, PlanCache cache)
      : name_(std::move(name)), factor_(noise_factor), plan_(std::move(cache)) {}
  std::string name() const override { return name_; }
  TrainingPlan plan(const TrainingConfig& c) const override { return DpSgdFamily(name_).plan(c); }
  std::unique_ptr<Run> start(const TrainingConfig& c) const override {
    if (!*plan_) *plan_ = std::make_shared<const dpsgd::DpSgdPlan>(dpsgd::plan_dpsgd(dpsgd_request(c)));
    return std::make_unique<Noise>(std::make_unique<DpSgdRun>(c, **plan_), factor_);
  }

 private:
  class Noise : public Run {
   public:
    Noise(std::unique_ptr<Run> inner, double factor) : inner_(std::move(inner)), factor_(factor) {}
    std::optional<Pass> next() override {
      std::optional<Pass> p = inner_->next();
      if (p) p->input[dpsgd::lot_state::kNoiseStd] /= factor_;
      return p;
    }
    void accept(const double* r, std::size_t len) override {
      std::vector<double> back(r, r + len);
      back[dpsgd::lot_state::kNoiseStd] *= factor_;
      inner_->accept(back.data(), back.size());
    }
    Model release(double seconds) override { return inner_->release(seconds); }
    const std::vector<std::string>& warnings() const override { return inner_->warnings(); }
    long progress_done() const override { return inner_->progress_done(); }
    long progress_total() const override { return inner_->progress_total(); }

   private:
    std::unique_ptr<Run> inner_;
    double factor_;
  };

  std::string name_;
  double factor_;
  PlanCache plan_;  // shared by every run of one scenario (one config)
};

inline TrainingConfig dpsgd_audit_config(const std::string& algorithm, double epsilon, double lot, int steps) {
  TrainingConfig c;
  c.algorithm = algorithm;
  c.epsilon = epsilon;
  c.delta = 1e-5;
  c.batch_size = static_cast<std::int64_t>(lot);
  c.learning_rate = algorithm == "dpsgd" ? 1.0 : std::optional<double>();
  c.options = {{"clip_norm", 0.5}, {"steps", steps}};
  return c;
}

// The exact epsilon of the one-lot, q = 1 release pair: Gaussian, shift C, std sigma C.
inline double dpsgd_one_lot_ceiling(const TrainingPlan& p, double delta) {
  return gaussian_pair_epsilon(1.0, p.privacy.at("noise_multiplier").get<double>(), delta);
}

inline Scenario dpsgd_scenario(const std::string& name, const TrainingConfig& c, double noise_factor,
                               bool one_full_lot) {
  Scenario s;
  s.name = name;
  s.config = c;
  const std::string algorithm = c.algorithm;
  auto cache = std::make_shared<std::shared_ptr<const dpsgd::DpSgdPlan>>();
  s.algorithm = [algorithm, noise_factor, cache] {
    return std::make_unique<PlannedDpSgd>(algorithm, noise_factor, cache);
  };
  // The clipped canary moves the lot sum by C at most: on the model, by alpha C / (q n).
  if (one_full_lot) {
    s.gap_bound = [c](const TrainingPlan&) { return *c.learning_rate * 0.5 / static_cast<double>(c.batch_size); };
    s.ceiling = dpsgd_one_lot_ceiling;
  }
  return s;
}

}  // namespace dptrain::test::audit
