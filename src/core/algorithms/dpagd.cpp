#include "core/algorithms/dpagd.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/algorithms/dpagd_warning.h"
#include "core/algorithms/released_model.h"
#include "core/algorithms/whitebox.h"
#include "core/engine/gradient_state.h"
#include "core/engine/run.h"
#include "core/error.h"
#include "core/privacy/exponential_mechanism.h"
#include "core/privacy/parameter_checks.h"
#include "core/privacy/report_noisy_min.h"
#include "core/privacy/samplers.h"
#include "core/engine/table_changed.h"

namespace dptrain {
namespace {

// Stream of a test seed for DP-AGD's noise.
constexpr std::uint64_t kDpagdNoiseStream = 0x64706167642d6e73;  // "dpagd-ns"

[[noreturn]] void bad_option(const std::string& key, const std::string& rule) {
  fail(ErrorKind::InvalidParameter, "options." + key + " must be " + rule, {},
       "See docs/dpagd.md for DP-AGD's options and defaults.");
}

double number_option(const TrainingConfig& c, const char* key, double fallback) {
  const auto it = c.options.find(key);
  if (it == c.options.end()) return fallback;
  if (!it->is_number()) bad_option(key, "a number");
  const double v = it->get<double>();
  if (!std::isfinite(v)) bad_option(key, "finite");
  return v;
}

int int_option(const TrainingConfig& c, const char* key, int fallback, int lo, int hi) {
  const double v = number_option(c, key, fallback);
  if (v != std::floor(v) || v < lo || v > hi)
    bad_option(key, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(v);
}

double positive_option(const TrainingConfig& c, const char* key, double fallback) {
  const double v = number_option(c, key, fallback);
  if (!(v > 0)) bad_option(key, "positive");
  return v;
}

// options.selection: "noisy_max" (the paper's report-noisy-min, the default) or "exponential".
DpagdSelection selection_option(const TrainingConfig& c) {
  return static_cast<DpagdSelection>(whitebox::choice_option(  // in the enum's order
      c, "dpagd", "selection", {"noisy_max", "exponential"},
      "\"noisy_max\" is the paper's report-noisy-min (eps_0^2/2-zCDP per line search); \"exponential\" "
      "the exponential mechanism (eps_0^2/8-zCDP per line search, docs/dpagd.md)."));
}

}  // namespace

DpagdSettings Dpagd::settings(const TrainingConfig& c) {
  validate_full_gradient_common(c, "dpagd");
  return arguments(c);
}

void Dpagd::check_arguments(const TrainingConfig& c) const { arguments(c); }

DpagdSettings Dpagd::arguments(const TrainingConfig& c) {
  check_full_gradient_arguments(c, "dpagd");
  whitebox::check_options(c, "dpagd", {"splits", "gamma", "candidates", "tau", "eta", "alpha_max",
                                       "gradient_clip", "loss_clip", "selection"});
  if (c.radius)
    fail(ErrorKind::InvalidParameter, "radius does not apply to dpagd",
         "DP-AGD takes unconstrained steps; its privacy never depends on the model's norm.", "Drop radius.");
  DpagdSettings s;
  s.epsilon = whitebox::required_epsilon(c, "dpagd");
  if (!c.delta || *c.delta <= 0)
    fail(ErrorKind::InvalidParameter, "algorithm \"dpagd\" needs delta > 0",
         "DP-AGD accounts in zCDP and reports (epsilon, delta)-DP; delta = 0 would need an infinite budget.",
         "Pass delta => ... (the paper uses 1e-8).");
  s.delta = *c.delta;
  s.splits = int_option(c, "splits", 60, 1, 1000000);
  s.gamma = positive_option(c, "gamma", 0.1);
  s.candidates = int_option(c, "candidates", 20, 1, 1000);
  s.tau = int_option(c, "tau", 10, 1, 1000000);
  s.eta = number_option(c, "eta", 0.1);
  if (s.eta < 0) bad_option("eta", ">= 0");
  s.alpha_max = positive_option(c, "alpha_max", 2.0);
  // The candidate steps j alpha_max / m are normal doubles: a subnormal one
  // (alpha_max = 5e-324) rounds, the candidates were not equally spaced, and
  // the line-search pass refused them -- after the charge, with no hint.
  if (!(s.alpha_max / s.candidates >= std::numeric_limits<double>::min()))
    fail(ErrorKind::InvalidParameter, "options.alpha_max is too small for dpagd",
         "The smallest candidate step alpha_max / candidates = " + privacy::short_number(s.alpha_max) + " / " +
             std::to_string(s.candidates) + " is below 2.2e-308, the smallest normal double.",
         "Use an options.alpha_max of ordinary size (the default is 2; it only caps the step size).");
  // The paper's C_grad = C_obj = 3 assume unnormalized rows of norm ~3-4;
  // dptrain clips rows to the feature bound L_x, so the defaults scale with
  // it: L_x / 2 (docs/dpagd.md has the measurements behind the factor).
  s.gradient_clip = positive_option(c, "gradient_clip", c.feature_bound / 2);
  s.loss_clip = positive_option(c, "loss_clip", c.feature_bound / 2);
  s.selection = selection_option(c);
  return s;
}

namespace {

// The privacy filter runs an iteration only when the rho left pays for its first
// gradient and line search (rho_ng + rho_nmax, both eps_0^2 times a constant): at
// a large epsilon (1e6 with the default 60 splits), or with too few splits for
// delta (epsilon = 0.1, delta = 1e-8, 1 split), none fits, and the run released its
// zero start, charged. The splits that make one fit follow from public inputs.
[[noreturn]] void refuse_no_iteration(const DpagdSettings& s, const DpagdBudget& b) {
  const double per_step_squared = (b.rho_ng + b.rho_nmax) / (b.epsilon_step * b.epsilon_step);
  const double splits = std::ceil(s.epsilon / (2.0 * std::sqrt(b.rho / per_step_squared)));
  fail(ErrorKind::InvalidParameter, "no dpagd iteration fits in (epsilon, delta) with options.splits = " + std::to_string(s.splits),
       "One iteration costs rho_ng + rho_nmax = " + privacy::short_number(b.rho_ng + b.rho_nmax) +
           " (eps_0 = epsilon / (2 splits) = " + privacy::short_number(b.epsilon_step) + "), more than the rho = " +
           privacy::short_number(b.rho) + " of (epsilon, delta): no iteration could run.",
       "Use options.splits >= " + privacy::short_number(splits) + " (at most 1000000).");
}

}  // namespace

DpagdBudget dpagd_budget(const DpagdSettings& s) {
  DpagdBudget b;
  b.selection = s.selection;
  b.epsilon_step = s.epsilon / (2.0 * s.splits);
  // An epsilon whose per-step share squares to 0 or infinity (1e-160, 1e300)
  // is outside what the zCDP bookkeeping below represents: said in the user's
  // terms, not as "rho must be a finite number > 0".
  const double step_squared = b.epsilon_step * b.epsilon_step;
  if (!(step_squared > 0) || !std::isfinite(step_squared) || !std::isfinite(s.epsilon * s.epsilon))
    fail(ErrorKind::InvalidParameter, "epsilon is outside the range of DP-AGD's zCDP accounting",
         "epsilon = " + privacy::short_number(s.epsilon) + " gives a per-step epsilon of " +
             privacy::short_number(b.epsilon_step) + " (epsilon / (2 splits)), whose square is not a positive double.",
         "Pass an epsilon of ordinary size (e.g. 0.01 .. 100).");
  // Lee & Kifer eq. (5): the largest rho whose Bun-Steinke conversion is (epsilon, delta).
  b.rho = privacy::dp_to_zcdp_rho(s.epsilon, s.delta);
  // An eps_0-DP selection is eps_0^2 / 2-zCDP (Lemma 3.7); the exponential mechanism on
  // monotone scores is eps_0-bounded-range, so eps_0^2 / 8-zCDP (Cesar & Rogers 2021).
  b.rho_nmax = s.selection == DpagdSelection::NoisyMax ? privacy::zcdp_from_pure_dp(b.epsilon_step)
                                                       : privacy::zcdp_from_bounded_range(b.epsilon_step);
  // The authors' code calibrates the first gradient classically at (eps_0, delta):
  // sigma = C sqrt(2 ln(1.25/delta)) / eps_0, which is C^2 / (2 sigma^2) =
  // eps_0^2 / (4 ln(1.25/delta))-zCDP (Lemma 3.6).
  b.rho_ng = b.epsilon_step * b.epsilon_step / (4.0 * std::log(1.25 / s.delta));
  b.max_iterations = static_cast<std::int64_t>(std::floor(b.rho / (b.rho_ng + b.rho_nmax)));
  if (b.max_iterations < 1) refuse_no_iteration(s, b);
  return b;
}

double dpagd_sigma(double gradient_clip, int models, double rho) {
  return privacy::zcdp_gaussian_sigma(gradient_clip * std::sqrt(static_cast<double>(models)), rho);
}

double dpagd_selection_scale(double loss_clip, int models, const DpagdBudget& b) {
  // Monotone scores (add/remove, non-negative clipped losses): scale Delta / eps.
  const double eps = b.selection == DpagdSelection::NoisyMax ? std::sqrt(2.0 * b.rho_nmax) : b.epsilon_step;
  return privacy::noisy_min_scale(loss_clip * models, eps, /*monotone=*/true);
}

std::vector<double> dpagd_average(const std::vector<double>& estimate, double rho_estimate,
                                  const std::vector<double>& fresh, double rho_fresh) {
  if (estimate.size() != fresh.size()) fail(ErrorKind::Internal, "dpagd_average: sizes differ");
  const double total = rho_estimate + rho_fresh;
  std::vector<double> out(estimate.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = (rho_estimate * estimate[i] + rho_fresh * fresh[i]) / total;
  return out;
}

namespace {

class DpagdRun : public Run {
 public:
  DpagdRun(const TrainingConfig& config, DpagdSettings settings, double noise_factor, TrainingPlan plan)
      : c_(config), s_(settings), b_(dpagd_budget(settings)), noise_factor_(noise_factor), plan_(std::move(plan)),
        rng_(noise_source(config, kDpagdNoiseStream)),
        kd_(static_cast<std::size_t>(config.models()) * static_cast<std::size_t>(config.dim)),
        w_(kd_, 0.0) {
    rho_left_ = b_.rho;
    rho_ng_ = b_.rho_ng;
    alpha_max_ = s_.alpha_max;
    gradient_.dim = line_search_.dim = c_.dim;
    gradient_.models = line_search_.models = c_.models();
    gradient_.loss = line_search_.loss = parse_loss(c_.loss);
    gradient_.huber_h = line_search_.huber_h = c_.huber_h;
    gradient_.feature_bound = line_search_.feature_bound = c_.feature_bound;
    gradient_.points = 1;
    gradient_.gradient_clip = s_.gradient_clip;
    gradient_.want = gradient_state::kGradient;
    line_search_.points = s_.candidates + 1;
    line_search_.loss_clip = s_.loss_clip;
    // The candidates w - j (alpha_max/m) dir are equally spaced on a line:
    // the request holds w and w - (alpha_max/m) dir, and the pass takes 2 dot
    // products per row instead of m + 1 (kLine).
    line_search_.want = gradient_state::kLossSums | gradient_state::kLine;
    // Both requests are checked now, before any data is read.
    gradient_state::state_length(gradient_);
    gradient_state::state_length(line_search_);
  }

  std::optional<Pass> next() override {
    if (awaiting_ != Phase::Done) fail(ErrorKind::Internal, "next() before the last pass was accepted");
    if (phase_ == Phase::Gradient && !spend(rho_ng_)) phase_ = Phase::Done;
    if (phase_ == Phase::LineSearch && !spend(b_.rho_nmax)) phase_ = Phase::Done;
    if (phase_ == Phase::Done) return std::nullopt;
    Pass p;
    p.kind = PassKind::GradientLoss;
    p.rows = c_.rows;
    p.input = input(phase_);
    awaiting_ = phase_;
    return p;
  }

  void accept(const double* result, std::size_t len) override {
    const Phase what = awaiting_;
    awaiting_ = Phase::Done;
    if (what == Phase::Done) fail(ErrorKind::Internal, "accept() without a pass");
    gradient_state::validate(result, len);
    const std::vector<double> expected = input(what);
    if (len != expected.size() || !gradient_state::same_request(result, expected.data()))
      fail(ErrorKind::InvalidState, "the gradient pass returned a state of a different request");
    if (gradient_state::rows(result) != c_.rows) refuse_changed_table("A gradient pass");
    if (what == Phase::Gradient)
      accept_gradient(result);
    else
      accept_line_search(result);
  }

  Model release(double seconds) override {
    if (released_ || phase_ != Phase::Done) fail(ErrorKind::Internal, "dpagd: release() out of order");
    released_ = true;
    ReleaseFacts f;
    f.algorithm = "dpagd";
    f.epsilon = s_.epsilon;
    f.delta = s_.delta;
    f.hyperparameters = {{"loss", c_.loss},         {"lambda", c_.lambda},
                         {"feature_bound", c_.feature_bound}, {"splits", s_.splits},
                         {"gamma", s_.gamma},       {"candidates", s_.candidates},
                         {"tau", s_.tau},           {"eta", s_.eta},
                         {"alpha_max", s_.alpha_max}, {"gradient_clip", s_.gradient_clip},
                         {"loss_clip", s_.loss_clip}};
    if (parse_loss(c_.loss) == LossKind::HuberSvm) f.hyperparameters["huber_h"] = c_.huber_h;
    if (!c_.options.empty()) f.hyperparameters["options"] = c_.options;
    f.privacy = plan_.privacy;
    const double spent = b_.rho - rho_left_;
    f.privacy["rho_spent"] = spent;
    f.privacy["epsilon_of_rho_spent_bun_steinke"] =
        privacy::zcdp_to_dp_epsilon(spent, s_.delta, privacy::ZcdpConversion::BunSteinke);
    f.privacy["epsilon_of_rho_spent_cks"] = privacy::zcdp_to_dp_epsilon(spent, s_.delta, privacy::ZcdpConversion::Cks);
    f.privacy["iterations"] = iterations_;
    f.privacy["gradient_measurements"] = gradient_passes_;
    f.privacy["gradient_refinements"] = refinements_;
    f.privacy["line_searches"] = line_searches_;
    f.privacy["rho_ng_final"] = rho_ng_;
    // Post-processing of the counts above (dpagd_warning.h): no privacy cost.
    DpagdPath path;
    path.iterations = iterations_;
    path.refinements = refinements_;
    path.line_searches = line_searches_;
    path.rho_ng = b_.rho_ng;
    path.rho_ng_final = rho_ng_;
    f.warnings = plan_.warnings;
    f.seconds = seconds;
    Model m = released_model(c_, Eigen::Map<const WeightMatrix>(w_.data(), c_.models(), c_.dim), f);
    if (std::optional<std::string> w = dpagd_refinement_warning(s_, path)) warn_on_release(m, std::move(*w));
    return m;
  }

  const std::vector<std::string>& warnings() const override { return plan_.warnings; }
  long progress_done() const override { return iterations_; }
  long progress_total() const override { return static_cast<long>(b_.max_iterations); }

 private:
  enum class Phase { Gradient, LineSearch, Done };

  // The privacy filter: pay `cost` if the budget allows, else refuse.
  bool spend(double cost) {
    if (rho_left_ < cost) return false;
    rho_left_ -= cost;
    return true;
  }

  std::vector<double> input(Phase phase) const {
    if (phase == Phase::Gradient) return gradient_state::make_state(gradient_, w_.data());
    // Steps or lambda far too large overflow the candidates; make_state then said only "a
    // model point is NaN or infinite", with no hint. Every candidate is checked, though
    // the request holds only the first two (kLine: the pass computes the others' margins).
    std::vector<double> points(2 * kd_);
    for (int j = 0; j <= s_.candidates; ++j)
      for (std::size_t i = 0; i < kd_; ++i) {
        const double v = w_[i] - step(j) * dir_[i];
        if (!std::isfinite(v))
          fail(ErrorKind::InvalidParameter, "DP-AGD diverged: a candidate model is infinite or NaN",
               "After " + std::to_string(iterations_) + " steps.", "Lower options.alpha_max or lambda.");
        if (j < 2) points[j * kd_ + i] = v;
      }
    return gradient_state::make_state(line_search_, points.data());
  }

  double step(int j) const { return j * alpha_max_ / s_.candidates; }

  // A fresh Gaussian measurement of the clipped gradient sum g at zCDP rho.
  std::vector<double> measure(double rho) {
    std::vector<double> m = g_;
    privacy::add_gaussian_noise(rng_, m.data(), m.size(), noise_factor_ * dpagd_sigma(s_.gradient_clip, c_.models(), rho));
    return m;
  }

  void accept_gradient(const double* result) {
    for (int k = 0; k < c_.models(); ++k) {
      const std::vector<double> gk = gradient_state::gradient_sum(result, 0, k);
      std::copy(gk.begin(), gk.end(), g_.begin() + static_cast<std::ptrdiff_t>(k) * c_.dim);
    }
    ++gradient_passes_;
    estimate_ = measure(rho_ng_);
    rho_estimate_ = rho_ng_;
    set_direction();
    phase_ = Phase::LineSearch;
  }

  void set_direction() {
    double norm = 0;
    for (double v : estimate_) norm += v * v;
    norm = std::sqrt(norm);
    // dir = S / ||S|| + lambda w (the authors' code adds the regularizer's gradient).
    for (std::size_t i = 0; i < kd_; ++i) dir_[i] = (norm > 0 ? estimate_[i] / norm : 0.0) + c_.lambda * w_[i];
  }

  void accept_line_search(const double* result) {
    std::vector<double> scores(static_cast<std::size_t>(s_.candidates + 1), 0.0);
    for (int j = 0; j <= s_.candidates; ++j)
      for (int k = 0; k < c_.models(); ++k) scores[j] += gradient_state::loss_sum(result, j, k);
    ++line_searches_;
    const std::size_t best = choose_step(scores);
    if (best > 0) return take_step(static_cast<int>(best));
    // No candidate descends: measure the same gradient again with more budget and average.
    const double rho_new = (1 + s_.gamma) * rho_estimate_, extra = rho_new - rho_estimate_;
    if (!spend(extra)) {
      phase_ = Phase::Done;
      return;
    }
    // Average with the CURRENT unnormalized estimate (the authors' code keeps
    // the first one; the paper passes the normalized direction).
    estimate_ = dpagd_average(estimate_, rho_estimate_, measure(extra), extra);
    rho_estimate_ = rho_ng_ = rho_new;
    ++refinements_;
    set_direction();
  }

  // The private choice of j*: the paper's NoisyMax, or the exponential mechanism at
  // P[j] ∝ exp(-eps_0 Omega_j / (K C_obj)) = exp(-Omega_j / scale) (monotone scores).
  std::size_t choose_step(const std::vector<double>& scores) {
    const double scale = noise_factor_ * dpagd_selection_scale(s_.loss_clip, c_.models(), b_);
    if (b_.selection == DpagdSelection::NoisyMax)
      return privacy::report_noisy_min(scores, privacy::NoisyMinNoise::Exponential, scale, rng_);
    return privacy::monotone_exponential_mechanism(scores, 1.0, scale, rng_);
  }

  void take_step(int j) {
    const double alpha = step(j);
    for (std::size_t i = 0; i < kd_; ++i) w_[i] -= alpha * dir_[i];
    history_.push_back(alpha);
    ++iterations_;
    if (iterations_ % s_.tau == 0) {
      alpha_max_ = std::min((1 + s_.eta) * *std::max_element(history_.begin(), history_.end()), s_.alpha_max);
      history_.clear();
    }
    phase_ = Phase::Gradient;
    report("iteration " + std::to_string(iterations_) + ": step " + std::to_string(j) + " of " +
           std::to_string(s_.candidates) + " (at most " + std::to_string(b_.max_iterations) + " iterations)");
  }

  TrainingConfig c_;
  DpagdSettings s_;
  DpagdBudget b_;
  double noise_factor_;
  TrainingPlan plan_;
  privacy::RandomSource rng_;
  std::size_t kd_;
  std::vector<double> w_;
  std::vector<double> g_ = std::vector<double>(kd_, 0.0);         // noiseless clipped gradient sum (inside only)
  std::vector<double> estimate_ = std::vector<double>(kd_, 0.0);  // S, unnormalized
  std::vector<double> dir_ = std::vector<double>(kd_, 0.0);
  gradient_state::Request gradient_, line_search_;
  double rho_left_ = 0, rho_ng_ = 0, rho_estimate_ = 0, alpha_max_ = 0;
  std::vector<double> history_;
  long iterations_ = 0, gradient_passes_ = 0, refinements_ = 0, line_searches_ = 0;
  Phase phase_ = Phase::Gradient;
  Phase awaiting_ = Phase::Done;
  bool released_ = false;
};

nlohmann::json dpagd_privacy(const DpagdSettings& s, const DpagdBudget& b, int models) {
  const bool noisy_max = b.selection == DpagdSelection::NoisyMax;
  return {{"private", true},
          {"mechanism", noisy_max
                            ? "dpagd: Gaussian gradient measurements and exponential-noise report-noisy-min line searches"
                            : "dpagd: Gaussian gradient measurements and exponential-mechanism line searches"},
          {"notion", "rho-zCDP, reported as (epsilon, delta)-DP"},
          {"adjacency", "add-remove"},
          {"conversion", "bun-steinke: epsilon = rho + 2 sqrt(rho ln(1/delta)) (Lee & Kifer eq. (5))"},
          {"budget", "privacy filter: every mechanism runs only if the remaining rho pays for it"},
          {"rho", b.rho},
          {"epsilon_step", b.epsilon_step},
          {"rho_nmax", b.rho_nmax},
          {"rho_ng", b.rho_ng},
          {"sigma_first", dpagd_sigma(s.gradient_clip, models, b.rho_ng)},
          {"selection", noisy_max ? "noisy_max" : "exponential"},
          {"selection_privacy", noisy_max ? "eps_0-DP report-noisy-min on monotone scores: rho_nmax = eps_0^2/2 "
                                            "(Bun & Steinke Prop. 1.4)"
                                          : "eps_0-bounded-range exponential mechanism on monotone scores: "
                                            "rho_nmax = eps_0^2/8 (Cesar & Rogers 2021)"},
          {"selection_noise", noisy_max ? "exponential" : "none: P[j] proportional to exp(-score_j / selection_scale)"},
          {"selection_scale", dpagd_selection_scale(s.loss_clip, models, b)},
          {"gradient_sensitivity", s.gradient_clip * std::sqrt(static_cast<double>(models))},
          {"score_sensitivity", s.loss_clip * models},
          {"max_iterations", b.max_iterations}};
}

// The noisiest draws the run can make, checked when planning (before the ledger charge)
// against the samplers' bounds (samplers.h require_drawable_*), not by the sampler during the
// run. The gradient noise is largest at the smallest rho a measurement gets: the first
// gradient at rho_ng, or a refinement at gamma * rho_estimate >= gamma * rho_ng (the estimate's
// rho only grows) when gamma < 1 and the budget can pay for one after the first gradient and
// line search (the filter's order of operations, DpagdRun::spend). The selection scale is
// the same every iteration (the exponential mechanism needs only a finite scale, and is held
// to the same bound). `factor` is the run's noise multiplier.
void require_drawable_noise(const DpagdSettings& s, const DpagdBudget& b, int models, double factor) {
  double rho_min = b.rho_ng;
  if (s.gamma < 1) {
    const double extra = (1 + s.gamma) * b.rho_ng - b.rho_ng;
    double left = b.rho;
    left -= b.rho_ng;
    left -= b.rho_nmax;
    if (left >= extra) rho_min = extra;
  }
  double sigma = std::numeric_limits<double>::infinity();
  try {
    if (rho_min > 0) sigma = factor * dpagd_sigma(s.gradient_clip, models, rho_min);
    privacy::require_drawable_gaussian(sigma);
  } catch (const Error& e) {
    fail(ErrorKind::InvalidParameter, "the gradient noise of dpagd is too large to draw",
         "sigma = " + privacy::short_number(sigma) + " = gradient_clip " + privacy::short_number(s.gradient_clip) +
             " * sqrt(K = " + std::to_string(models) + ") / sqrt(2 rho) at rho = " +
             privacy::short_number(rho_min) + " (the noisiest measurement); " + e.what() + ".",
         "Use a smaller options.gradient_clip (default feature_bound / 2), a larger epsilon or fewer "
         "options.splits (or options.gamma >= 1).");
  }
  // What the selection scale is (for the message): noisy_min_scale refuses it unscaled.
  double scale = factor * s.loss_clip * models / b.epsilon_step;
  try {
    scale = factor * dpagd_selection_scale(s.loss_clip, models, b);
    privacy::require_drawable_laplace(scale);  // the exponential's bound: samplers.h
  } catch (const Error& e) {
    fail(ErrorKind::InvalidParameter, "the line-search noise of dpagd is too large to draw",
         "selection scale = " + privacy::short_number(scale) + " = loss_clip " + privacy::short_number(s.loss_clip) +
             " * K = " + std::to_string(models) + " / epsilon_step " + privacy::short_number(b.epsilon_step) +
             "; " + e.what() + ".",
         "Use a smaller options.loss_clip (default feature_bound / 2), a larger epsilon or fewer options.splits.");
  }
}

// A line search's score is a sum over the n rows and K models of losses clipped at
// loss_clip, so at most n K loss_clip. Beyond the double range, whether a pass overflowed
// depended on how many rows had a loss near the clip at the candidates: an exact count,
// outside the (epsilon, delta), after the charge (hostile review of 2026-11-28: 10 vs 30
// misclassified rows of 300 at loss_clip 7e306 gave a model vs "malformed gradient state").
// Refused by the public n, with room for the rounding of the summation.
void require_finite_scores(const DpagdSettings& s, std::int64_t rows, int models) {
  const double bound = static_cast<double>(rows) * models * s.loss_clip;
  if (bound <= std::numeric_limits<double>::max() / 2) return;
  fail(ErrorKind::InvalidParameter, "options.loss_clip is too large for dpagd on " + std::to_string(rows) + " rows",
       "A line search sums up to n K loss_clip = " + std::to_string(rows) + " * " + std::to_string(models) + " * " +
           privacy::short_number(s.loss_clip) + " = " + privacy::short_number(bound) +
           ", beyond half the largest double: whether a sum overflowed would depend on the rows.",
       "Use a smaller options.loss_clip (default feature_bound / 2).");
}

}  // namespace

TrainingPlan Dpagd::plan(const TrainingConfig& c) const {
  const DpagdSettings s = settings(c);
  const DpagdBudget b = dpagd_budget(s);
  require_drawable_noise(s, b, c.models(), noise_factor());
  require_finite_scores(s, c.rows, c.models());
  TrainingPlan p;
  p.epochs = static_cast<int>(std::min<std::int64_t>(b.max_iterations, 1 << 30));
  p.epsilon = s.epsilon;
  p.delta = s.delta;
  p.privacy = dpagd_privacy(s, b, c.models());
  whitebox::warn_if_delta_large(c, s.delta, p);
  return p;
}

std::unique_ptr<Run> Dpagd::start(const TrainingConfig& c) const {
  return std::make_unique<DpagdRun>(c, settings(c), noise_factor(), plan(c));
}

}  // namespace dptrain
