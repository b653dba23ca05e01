// DP-AGD (algorithm => 'dpagd'): the zCDP budget and every noise scale pinned
// to values computed by hand (30-digit arithmetic, mpmath, from the formulas
// in the comments), the corrected gradient averaging, the privacy filter
// (never spends more than rho, stops only when the next mechanism cannot be
// paid), the passes of a run, bad options, determinism and convergence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "core/algorithms/dpagd.h"
#include "core/engine/gradient_state.h"
#include "core/engine/in_memory.h"
#include "core/engine/run.h"
#include "core/error.h"
#include "sparse_problem.h"
#include "core/privacy/samplers.h"

namespace dptrain {
namespace {

using test::binary_accuracy;
using test::sparse_problem;

double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

DpagdSettings settings(double epsilon, double delta) {
  DpagdSettings s;
  s.epsilon = epsilon;
  s.delta = delta;
  s.gradient_clip = s.loss_clip = 0.5;
  return s;
}

TEST(DpagdBudget, PaperDefaultsAtEpsilonPointOne) {
  // eps = 0.1, delta = 1e-8, splits = 60; ln(1/delta) = 18.420680744:
  //   rho = (sqrt(18.420680744 + 0.1) - sqrt(18.420680744))^2 = 1.35349888537e-4;
  //   eps_0 = 0.1 / 120 = 8.33333333e-4; rho_nmax = eps_0^2 / 2 = 3.47222222222e-7;
  //   rho_ng = eps_0^2 / (4 ln(1.25e8)) = 6.94444e-7 / 74.5747... = 9.31199030637e-9;
  //   at most floor(rho / (rho_ng + rho_nmax)) = 379 iterations.
  const DpagdBudget b = dpagd_budget(settings(0.1, 1e-8));
  EXPECT_LT(rel(b.rho, 1.35349888537e-4), 1e-9);
  EXPECT_LT(rel(b.epsilon_step, 8.33333333333e-4), 1e-12);
  EXPECT_LT(rel(b.rho_nmax, 3.47222222222e-7), 1e-9);
  EXPECT_LT(rel(b.rho_ng, 9.31199030637e-9), 1e-9);
  EXPECT_EQ(b.max_iterations, 379);
}

// epsilon = 1e300 or 1e-160 failed as "rho must be a finite number > 0", which
// names no argument the caller passed.
TEST(DpagdBudget, RefusesAnEpsilonOutsideTheZcdpRange) {
  for (double epsilon : {1e300, 1e-160}) {
    try {
      dpagd_budget(settings(epsilon, 1e-5));
      ADD_FAILURE() << epsilon;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
      EXPECT_STREQ(e.what(), "epsilon is outside the range of DP-AGD's zCDP accounting");
    }
  }
  EXPECT_NO_THROW(dpagd_budget(settings(1e-100, 1e-5)));
}

// epsilon = 1e6, delta = 1e-6, 60 splits: one iteration costs eps_0^2 (1/2 + 1/(4 ln(1.25e6)))
// = 8333.33^2 * 0.517811 = 3.59589e7 > rho = 992594: the run released its zero start.
// 362 splits: eps_0 = 1381.22, 987,940 <= rho; 361 splits: 993,418 > rho.
TEST(DpagdBudget, RefusesABudgetNoIterationFitsIn) {
  try {
    dpagd_budget(settings(1e6, 1e-6));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_STREQ(e.what(), "no dpagd iteration fits in (epsilon, delta) with options.splits = 60");
    EXPECT_NE(e.hint().find("options.splits >= 362 "), std::string::npos) << e.hint();
  }
  DpagdSettings s = settings(1e6, 1e-6);
  s.splits = 362;
  EXPECT_EQ(dpagd_budget(s).max_iterations, 1);
  s.splits = 361;
  EXPECT_THROW(dpagd_budget(s), Error);
}

TEST(DpagdBudget, OtherTargets) {
  // eps = 1.6, delta = 1e-8: rho = 0.0333119013433, rho_nmax = (1.6/120)^2/2 = 8.88888888889e-5,
  //   rho_ng = 2.38386951843e-6, 364 iterations at most.
  DpagdBudget b = dpagd_budget(settings(1.6, 1e-8));
  EXPECT_LT(rel(b.rho, 0.0333119013433), 1e-9);
  EXPECT_LT(rel(b.rho_nmax, 8.88888888889e-5), 1e-9);
  EXPECT_LT(rel(b.rho_ng, 2.38386951843e-6), 1e-9);
  EXPECT_EQ(b.max_iterations, 364);
  // eps = 1, delta = 1e-5: rho = 0.0208199383395; rho_ng = 1.47929524673e-6.
  b = dpagd_budget(settings(1.0, 1e-5));
  EXPECT_LT(rel(b.rho, 0.0208199383395), 1e-9);
  EXPECT_LT(rel(b.rho_ng, 1.47929524673e-6), 1e-9);
  EXPECT_EQ(b.max_iterations, 575);
}

TEST(DpagdBudget, NoiseScales) {
  // Gaussian: Delta = C sqrt(K) (add/remove; each model's row gradient clipped to C),
  // sigma = Delta / sqrt(2 rho). C = 0.5 at rho_ng = 9.31199030637e-9: K = 1 -> 3663.81679299,
  // K = 3 -> 6345.91683508.
  EXPECT_LT(rel(dpagd_sigma(0.5, 1, 9.31199030637e-9), 3663.81679299), 1e-9);
  EXPECT_LT(rel(dpagd_sigma(0.5, 3, 9.31199030637e-9), 6345.91683508), 1e-9);
  // Selection: monotone scores of sensitivity K C_obj, eps_nmax = sqrt(2 rho_nmax) = eps_0:
  // scale K C_obj / eps_0 = 0.5 / 8.3333e-4 = 600 (K = 1), 1800 (K = 3).
  DpagdBudget b;
  b.rho_nmax = 3.47222222222e-7;
  EXPECT_LT(rel(dpagd_selection_scale(0.5, 1, b), 600.0), 1e-9);
  EXPECT_LT(rel(dpagd_selection_scale(0.5, 3, b), 1800.0), 1e-9);
}

TEST(DpagdAverage, InverseVarianceWeightsOfUnnormalizedEstimates) {
  // (1 * (1, 2) + 0.1 * (3, 4)) / 1.1 = (1.3, 2.4) / 1.1.
  const std::vector<double> a = dpagd_average({1, 2}, 1.0, {3, 4}, 0.1);
  EXPECT_DOUBLE_EQ(a[0], 1.3 / 1.1);
  EXPECT_DOUBLE_EQ(a[1], 2.4 / 1.1);
  // Statistically: measurements of g = 0 with variance 1/(2 rho) (C = 1). Averaging one at
  // rho = 1 with one at 0.1 gives variance 1/(2 * 1.1) = 0.454545; 100000 draws: the sample
  // variance has relative standard error sqrt(2/100000) = 0.45%, so 3% is > 6 sigma.
  privacy::RandomSource rng = privacy::RandomSource::seeded(3);
  double sum2 = 0;
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) {
    const double s1 = privacy::standard_normal(rng) * dpagd_sigma(1, 1, 1.0);
    const double s2 = privacy::standard_normal(rng) * dpagd_sigma(1, 1, 0.1);
    const double v = dpagd_average({s1}, 1.0, {s2}, 0.1)[0];
    sum2 += v * v;
  }
  EXPECT_NEAR(sum2 / draws / (1 / 2.2), 1.0, 0.03);
}

TrainingConfig dpagd_config(std::int64_t rows, int dim, double epsilon, std::optional<double> delta,
                            int classes = 2) {
  TrainingConfig c;
  c.algorithm = "dpagd";
  c.rows = rows;
  c.dim = dim;
  c.epsilon = epsilon;
  c.delta = delta;
  for (int k = 0; k < classes; ++k) c.classes.push_back("c" + std::to_string(k));
  return c;
}

TEST(DpagdSettings, DefaultsScaleTheClippingWithTheFeatureBound) {
  TrainingConfig c = dpagd_config(100, 3, 0.1, 1e-8);
  DpagdSettings s = Dpagd::settings(c);
  EXPECT_EQ(s.splits, 60);
  EXPECT_EQ(s.candidates, 20);
  EXPECT_EQ(s.tau, 10);
  EXPECT_DOUBLE_EQ(s.gamma, 0.1);
  EXPECT_DOUBLE_EQ(s.eta, 0.1);
  EXPECT_DOUBLE_EQ(s.alpha_max, 2.0);
  EXPECT_DOUBLE_EQ(s.gradient_clip, 0.5);
  EXPECT_DOUBLE_EQ(s.loss_clip, 0.5);
  c.feature_bound = 4;
  s = Dpagd::settings(c);
  EXPECT_DOUBLE_EQ(s.gradient_clip, 2.0);
  EXPECT_DOUBLE_EQ(s.loss_clip, 2.0);
  c.options = {{"gradient_clip", 3}, {"loss_clip", 3}, {"splits", 30}};
  s = Dpagd::settings(c);
  EXPECT_DOUBLE_EQ(s.gradient_clip, 3.0);
  EXPECT_DOUBLE_EQ(s.loss_clip, 3.0);
  EXPECT_EQ(s.splits, 30);
}

TEST(DpagdPlan, LineSearchSensitivityFollowsTheLossClip) {
  // docs/dpagd.md ("The loss clip over the eps grid") advises loss_clip = 2 for the Huber
  // SVM at eps >= 0.8: the recorded and the applied selection noise must use that C_obj.
  // eps = 0.1, splits = 60: eps_0 = 0.1 / 120 = 8.3333e-4. Scores of sensitivity K C_obj,
  // exponential scale K C_obj / eps_0:
  //   default C_obj = L_x / 2 = 0.5, K = 1: 0.5 and 600;
  //   loss_clip 2, K = 1: 2 and 2 / 8.3333e-4 = 2400;  K = 3: 6 and 7200.
  const auto privacy = [](int classes, double loss_clip) {
    TrainingConfig c = dpagd_config(100, 3, 0.1, 1e-8, classes);
    if (loss_clip > 0) c.options = {{"loss_clip", loss_clip}};
    return Dpagd().plan(c).privacy;
  };
  nlohmann::json p = privacy(2, 0);
  EXPECT_DOUBLE_EQ(p["score_sensitivity"].get<double>(), 0.5);
  EXPECT_LT(rel(p["selection_scale"].get<double>(), 600.0), 1e-9);
  p = privacy(2, 2);
  EXPECT_DOUBLE_EQ(p["score_sensitivity"].get<double>(), 2.0);
  EXPECT_LT(rel(p["selection_scale"].get<double>(), 2400.0), 1e-9);
  p = privacy(3, 2);
  EXPECT_DOUBLE_EQ(p["score_sensitivity"].get<double>(), 6.0);
  EXPECT_LT(rel(p["selection_scale"].get<double>(), 7200.0), 1e-9);
}

void expect_refused(TrainingConfig c, const std::string& fragment);

// eps = 0.1, delta = 1e-8, splits 60, gamma 0.1: eps_0 = 8.3333e-4, rho_ng = eps_0^2 / (4 ln(1.25e8))
// = 9.3120e-9; the first measurement has sigma = C / sqrt(2 rho_ng) = 7328 C, a refinement at
// gamma rho_ng = 9.3120e-10 has sigma = 23172 C. At C = 1e303 the first (7.3e306) is drawable
// and a refinement (2.3e307 > DBL_MAX / 16 = 1.12e307) is not: the sampler refused it during
// the run, after the charge; the plan refuses it now.
TEST(DpagdPlan, RefusesAGradientNoiseNoSamplerDraws) {
  TrainingConfig c = dpagd_config(100, 3, 0.1, 1e-8);
  c.options = {{"gradient_clip", 1e303}};
  expect_refused(c, "too large to draw");
  c.options = {{"gradient_clip", 1e302}};  // 2.3e306: drawable
  EXPECT_NO_THROW(Dpagd().plan(c));
}

void expect_refused(TrainingConfig c, const std::string& fragment) {
  try {
    Dpagd().plan(c);
    ADD_FAILURE() << "accepted: " << fragment;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(DpagdSettings, BadArgumentsAreRefusedBeforeAnyData) {
  const TrainingConfig ok = dpagd_config(100, 3, 0.1, 1e-8);
  EXPECT_NO_THROW(Dpagd().plan(ok));
  TrainingConfig c = ok;
  c.delta = 0.0;
  expect_refused(c, "needs delta > 0");
  c.delta.reset();
  expect_refused(c, "needs delta > 0");
  c = ok;
  c.epsilon.reset();
  expect_refused(c, "needs epsilon");
  for (const char* key : {"splits", "candidates", "tau", "gamma", "gradient_clip", "loss_clip", "alpha_max"}) {
    c = ok;
    c.options = {{key, 0}};
    expect_refused(c, std::string("options.") + key);
  }
  c = ok;
  c.options = {{"splits", 2.5}};
  expect_refused(c, "options.splits");
  c = ok;
  c.options = {{"eta", -1}};
  expect_refused(c, "options.eta");
  c = ok;
  c.options = {{"gradient_clip", "big"}};
  expect_refused(c, "options.gradient_clip");
  c = ok;
  c.options = {{"coordinate_bound", 1}};
  expect_refused(c, "unknown option");
  c = ok;
  c.radius = 1.0;
  expect_refused(c, "radius");
  c = ok;
  c.schedule = "constant";
  expect_refused(c, "schedule");
}

// A subnormal smallest candidate step (alpha_max 5e-324): the candidates were
// not equally spaced and the line-search pass refused them during the run,
// after the charge, with no hint. Refused by the settings now, with one.
TEST(DpagdSettings, AnAlphaMaxWithSubnormalStepsIsRefused) {
  TrainingConfig c = dpagd_config(100, 3, 0.1, 1e-8);
  for (double alpha_max : {5e-324, 1e-310, 2.2e-307}) {  // 2.2e-307 / 20 candidates is below 2.2e-308 too
    c.options = {{"alpha_max", alpha_max}};
    try {
      Dpagd().plan(c);
      ADD_FAILURE() << "planned: " << alpha_max;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "options.alpha_max is too small for dpagd");
      EXPECT_NE(e.detail().find("alpha_max / candidates = "), std::string::npos) << e.detail();
      EXPECT_NE(e.hint().find("options.alpha_max of ordinary size"), std::string::npos) << e.hint();
    }
  }
  c.options = {{"alpha_max", 1e-300}};  // tiny, but every step a normal double
  EXPECT_NO_THROW(Dpagd().plan(c));
  c.options = {{"alpha_max", 4.5e-307}, {"candidates", 20}};  // 4.5e-307 / 20 = 2.25e-308: the smallest normal
  EXPECT_NO_THROW(Dpagd().plan(c));
}

// A noise scale the samplers cannot draw (a draw could round to inf: samplers.h, Gaussian
// above DBL_MAX/16 = 1.12356e307, exponential above DBL_MAX/64 = 2.80890e306) is refused by
// the plan, before the ledger charge, not by the sampler during the run. eps = 1, delta =
// 1e-8, splits 60: eps_0 = 1/120, rho_ng = eps_0^2 / (4 ln 1.25e8) = 9.31199e-7, so sigma =
// C / sqrt(2 rho_ng) = 732.763 C at the first gradient and C / sqrt(2 * 0.1 rho_ng) =
// 2317.20 C at a refinement with the default gamma = 0.1 (rho = 0.0132 pays for one);
// the selection scale is C_obj / eps_0 = 120 C_obj.
class LoudDpagd : public Dpagd {
 protected:
  double noise_factor() const override { return 10; }
};

void expect_undrawable(const Dpagd& a, const TrainingConfig& c, const std::string& fragment) {
  try {
    a.plan(c);
    ADD_FAILURE() << "planned: " << c.options.dump();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(DpagdPlan, RefusesNoiseTheSamplersCannotDrawBeforeTheCharge) {
  TrainingConfig c = dpagd_config(100, 3, 1.0, 1e-8);
  const std::string gradient = "gradient noise of dpagd is too large to draw";
  const std::string selection = "line-search noise of dpagd is too large to draw";
  // Refinement (gamma 0.1): 2317.20 * 4e303 = 9.27e306 draws, * 5e303 = 1.159e307 does not.
  c.options = {{"gradient_clip", 4e303}};
  EXPECT_NO_THROW(Dpagd().plan(c));
  c.options = {{"gradient_clip", 5e303}};
  expect_undrawable(Dpagd(), c, gradient);
  // gamma = 1: the first gradient is the noisiest, 732.763 * 1.5e304 = 1.099e307 draws,
  // * 1.6e304 = 1.172e307 does not.
  c.options = {{"gradient_clip", 1.5e304}, {"gamma", 1}};
  EXPECT_NO_THROW(Dpagd().plan(c));
  c.options = {{"gradient_clip", 1.6e304}, {"gamma", 1}};
  expect_undrawable(Dpagd(), c, gradient);
  // A clip whose sigma overflows to inf.
  c.options = {{"gradient_clip", 1e306}};
  expect_undrawable(Dpagd(), c, gradient);
  // Selection: 120 * 2e304 = 2.4e306 draws, 120 * 3e304 = 3.6e306 does not.
  c.options = {{"loss_clip", 2e304}};
  EXPECT_NO_THROW(Dpagd().plan(c));
  c.options = {{"loss_clip", 3e304}};
  expect_undrawable(Dpagd(), c, selection);
  // The run's noise multiplier counts: ten times 1.159e306 and 2.4e306 are refused.
  c.options = {{"gradient_clip", 5e302}};
  EXPECT_NO_THROW(Dpagd().plan(c));
  expect_undrawable(LoudDpagd(), c, gradient);
  c.options = {{"loss_clip", 2e304}};
  expect_undrawable(LoudDpagd(), c, selection);
}

// A line search's score sums n K losses clipped at loss_clip; n K loss_clip beyond
// DBL_MAX / 2 = 8.98847e307 is refused by the public n before the charge (it overflowed,
// or not, as the rows decided). eps = 40, 8 splits: eps_step = 2.5, the selection scale
// loss_clip / 2.5 draws either way.
TEST(DpagdPlan, RefusesALossClipWhoseScoresCouldOverflow) {
  TrainingConfig c = dpagd_config(300, 2, 40.0, 1e-25);
  c.options = {{"loss_clip", 2.9e305}, {"splits", 8}};  // 300 * 2.9e305 = 8.7e307
  EXPECT_NO_THROW(Dpagd().plan(c));
  c.options = {{"loss_clip", 3.0e305}, {"splits", 8}};  // 9.0e307
  expect_undrawable(Dpagd(), c, "options.loss_clip is too large for dpagd on 300 rows");
  c.rows = 290;  // 8.7e307: the same clip on fewer rows
  EXPECT_NO_THROW(Dpagd().plan(c));
  c.rows = 100;  // three one-vs-all models: 3 * 100 * 3e305 = 9.0e307
  c.classes = {"a", "b", "c"};
  expect_undrawable(Dpagd(), c, "options.loss_clip is too large for dpagd on 100 rows");
}

TEST(DpagdSettings, ArgumentChecksNeedNoFactOfTheData) {
  TrainingConfig c = dpagd_config(0, 0, 0.1, 1e-8, 0);
  EXPECT_NO_THROW(Dpagd().check_arguments(c));
  c.delta = 0.0;
  EXPECT_THROW(Dpagd().check_arguments(c), Error);
  c = dpagd_config(0, 0, 0.1, 1e-8, 0);
  c.options = {{"splits", 0}};
  EXPECT_THROW(Dpagd().check_arguments(c), Error);
}

// DP-AGD with both noises scaled down to nothing: the passes can be checked
// against the exact arithmetic. TEST ONLY.
class NoiselessDpagd : public Dpagd {
 protected:
  double noise_factor() const override { return 1e-12; }
};

InMemoryData small_table() {
  InMemoryData t;
  for (int i = 0; i < 40; ++i) {
    t.x.push_back({std::sin(i * 0.9), std::cos(i * 1.7) * 0.5, 0.3});
    t.y.push_back(std::sin(i * 0.9) + 0.2 > 0 ? 1.0 : 0.0);
  }
  return t;
}

std::vector<double> run_pass(const Pass& p, const InMemoryData& t) {
  std::vector<double> s = p.input;
  for (std::size_t i = 0; i < t.x.size(); ++i) gradient_state::add_row(s.data(), t.x[i].data(), 3, t.y[i]);
  return s;
}

TEST(DpagdRun, TheLineSearchPassClipsAtTheLossClipOption) {
  // The pass the scores come from clips each row's loss at options.loss_clip, the C_obj of
  // the selection's sensitivity (DpagdPlan.LineSearchSensitivityFollowsTheLossClip).
  const InMemoryData t = small_table();
  TrainingConfig c = dpagd_config(40, 3, 1.0, 1e-6);
  c.seed = 1;
  c.options = {{"loss_clip", 2}};
  std::unique_ptr<dptrain::Run> run = start_run(c, std::make_shared<NoiselessDpagd>());
  std::optional<Pass> p = run->next();
  ASSERT_TRUE(p);
  const std::vector<double> g_state = run_pass(*p, t);
  run->accept(g_state.data(), g_state.size());
  p = run->next();
  ASSERT_TRUE(p);
  ASSERT_EQ(gradient_state::points(p->input.data()), 21);
  EXPECT_EQ(gradient_state::request_of(p->input.data()).loss_clip, 2.0);
}

TEST(DpagdRun, GradientPassThenOneLineSearchPassAtTheCandidatePoints) {
  const InMemoryData t = small_table();
  TrainingConfig c = dpagd_config(40, 3, 1.0, 1e-6);
  c.seed = 1;
  std::unique_ptr<dptrain::Run> run = start_run(c, std::make_shared<NoiselessDpagd>());
  // 1. The clipped gradient at w = 0 (C_grad = 0.5, no loss sums).
  std::optional<Pass> p = run->next();
  ASSERT_TRUE(p);
  EXPECT_EQ(gradient_state::request_of(p->input.data()).gradient_clip, 0.5);
  EXPECT_EQ(gradient_state::points(p->input.data()), 1);
  const std::vector<double> g_state = run_pass(*p, t);
  const std::vector<double> g = gradient_state::gradient_sum(g_state.data(), 0, 0);
  run->accept(g_state.data(), g_state.size());
  // 2. The line search: 21 points w - (j * 2 / 20) g / ||g||, losses clipped at C_obj = 0.5,
  // as a line: the request holds the first two (the pass computes the others' margins).
  p = run->next();
  ASSERT_TRUE(p);
  const double* s = p->input.data();
  ASSERT_EQ(gradient_state::points(s), 21);
  EXPECT_EQ(gradient_state::request_of(s).want, gradient_state::kLossSums | gradient_state::kLine);
  EXPECT_EQ(gradient_state::request_only(s, p->input.size()).size(), gradient_state::kHeaderSize + 2u * 3);
  EXPECT_EQ(gradient_state::request_of(s).loss_clip, 0.5);
  const double norm = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  for (int j = 0; j <= 1; ++j)
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(gradient_state::point(s, j, 0)[i], -(j * 0.1) * g[i] / norm, 1e-9);
  const std::vector<double> ls = run_pass(*p, t);
  int best = 0;
  for (int j = 1; j <= 20; ++j)
    if (gradient_state::loss_sum(ls.data(), j, 0) < gradient_state::loss_sum(ls.data(), best, 0)) best = j;
  ASSERT_GT(best, 0);  // from w = 0 a step along -g descends
  run->accept(ls.data(), ls.size());
  // 3. The next gradient pass is at the chosen point.
  p = run->next();
  ASSERT_TRUE(p);
  ASSERT_EQ(gradient_state::points(p->input.data()), 1);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(gradient_state::point(p->input.data(), 0, 0)[i], -(best * 0.1) * g[i] / norm, 1e-9);
}

// What the filter guarantees, from the released record: never more than rho,
// and the run stopped only because the next mechanism could not be paid.
void expect_filter_respected(const Model& m) {
  const nlohmann::json& p = m.details["privacy"];
  const double rho = p["rho"], spent = p["rho_spent"], nmax = p["rho_nmax"], ng = p["rho_ng_final"];
  const double gamma = m.details["hyperparameters"]["gamma"];
  EXPECT_LE(spent, rho * (1 + 1e-12));
  EXPECT_LT(rho - spent, std::max({nmax, ng, gamma * ng}));
  const long iterations = p["iterations"], searches = p["line_searches"], refinements = p["gradient_refinements"],
             measured = p["gradient_measurements"];
  // Every line search either stepped or was followed by a refinement (or by the stop).
  EXPECT_GE(searches, iterations + refinements);
  EXPECT_LE(searches, iterations + refinements + 1);
  EXPECT_GE(measured, iterations);
  EXPECT_LE(measured, iterations + 1);
  EXPECT_LE(iterations, p["max_iterations"].get<long>());
  EXPECT_LE(p["epsilon_of_rho_spent_cks"].get<double>(), p["epsilon_of_rho_spent_bun_steinke"].get<double>());
  EXPECT_LE(p["epsilon_of_rho_spent_bun_steinke"].get<double>(), *m.epsilon * (1 + 1e-9));
}

Model train(TrainingConfig c, const InMemoryData& t, std::uint64_t order_seed) {
  c.rows = t.rows();
  c.dim = t.dim();
  std::unique_ptr<dptrain::Run> run = start_run(c, std::make_shared<Dpagd>());
  std::vector<std::int64_t> order(static_cast<std::size_t>(c.rows));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(order_seed));
  return drive_in_memory(*run, t, order);
}

TEST(DpagdRun, ConvergesWithinTheBudgetAndIsDeterministicForASeed) {
  const InMemoryData t = sparse_problem(1500, 7);
  TrainingConfig c = dpagd_config(0, 0, 1.0, 1e-8);
  c.seed = 21;
  const Model a = train(c, t, 1);
  const Model b = train(c, t, 2);  // another row order: the same sums
  EXPECT_LT((a.weights - b.weights).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_GT(binary_accuracy(a, t), 0.85);  // 95% is the Bayes rate, 50% the majority
  expect_filter_respected(a);
  EXPECT_GT(a.details["privacy"]["iterations"].get<long>(), 10);
  c.seed = 22;
  EXPECT_GT((train(c, t, 1).weights - a.weights).cwiseAbs().maxCoeff(), 0);
  c.seed.reset();
  const Model secure = train(c, t, 1);
  EXPECT_FALSE(secure.seeded);
  expect_filter_respected(secure);
  // Fresh noise every time, so no accuracy bound here (it would fail now and then:
  // the seeded runs above check accuracy); two secure runs must differ.
  EXPECT_GT((train(c, t, 1).weights - secure.weights).cwiseAbs().maxCoeff(), 0);
}

TEST(DpagdRun, AtTinyBudgetsTheFilterStopsAndRefinementsHappen) {
  const InMemoryData t = sparse_problem(500, 3);
  TrainingConfig c = dpagd_config(0, 0, 0.05, 1e-8);
  long refinements = 0;
  for (int seed = 1; seed <= 5; ++seed) {
    c.seed = seed;
    const Model m = train(c, t, 1);
    expect_filter_respected(m);
    refinements += m.details["privacy"]["gradient_refinements"].get<long>();
  }
  EXPECT_GT(refinements, 0);  // at this noise level some searches find no descent
}

TEST(DpagdRun, OneSplitIsRefusedBeforeAnyPass) {
  // splits = 1, eps = 0.1, delta = 1e-8: eps_0 = 0.05, rho_nmax = 1.25e-3 > rho = 1.3535e-4: not
  // one iteration fits (until 2026-11-28 the run measured one gradient and released w = 0,
  // charged). One iteration costs eps_0^2 (1/2 + 1/(4 ln(1.25e8))) = eps_0^2 * 0.5134093; it
  // fits when eps_0 <= sqrt(1.3535e-4 / 0.5134093) = 0.0162367, i.e. splits >= 0.1 / 0.0324734
  // = 3.08: 4 (3 splits: 0.1666667^2/... = 1.42613e-4 > rho).
  const InMemoryData t = sparse_problem(200, 5);
  TrainingConfig c = dpagd_config(0, 0, 0.1, 1e-8);
  c.options = {{"splits", 1}};
  c.seed = 1;
  try {
    train(c, t, 1);
    ADD_FAILURE() << "one split was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter);
    EXPECT_NE(e.hint().find("options.splits >= 4 "), std::string::npos) << e.hint();
  }
  c.options = {{"splits", 3}};
  EXPECT_THROW(train(c, t, 1), Error);
  c.options = {{"splits", 4}};
  const Model m = train(c, t, 1);
  EXPECT_GE(m.details["privacy"]["line_searches"].get<long>(), 1);  // the iteration the hint promised
  expect_filter_respected(m);
}

TEST(DpagdRun, OneVsAll) {
  InMemoryData t;
  for (int i = 0; i < 900; ++i) {
    const int k = i % 3;
    std::vector<double> x = {0.1, 0.1, 0.1};
    x[k] = 0.8;
    t.x.push_back(x);
    t.y.push_back(k);
  }
  TrainingConfig c = dpagd_config(0, 0, 2.0, 1e-6, 3);
  c.seed = 4;
  const Model m = train(c, t, 1);
  ASSERT_EQ(m.weights.rows(), 3);
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 3; ++j)
      if (j != k) {
        EXPECT_GT(m.weights(k, k), m.weights(k, j)) << "model " << k;
      }
  EXPECT_NEAR(m.details["privacy"]["score_sensitivity"].get<double>(), 1.5, 1e-12);
  expect_filter_respected(m);
}

// ---- options.selection = 'exponential' (dpagd.h, docs/dpagd.md) -----------------------

DpagdSettings exponential_settings(double epsilon, double delta) {
  DpagdSettings s = settings(epsilon, delta);
  s.selection = DpagdSelection::Exponential;
  return s;
}

TEST(DpagdExponentialBudget, EachLineSearchCostsAQuarter) {
  // eps = 0.1, delta = 1e-8, splits = 60 (40-digit mpmath): rho = 1.35349888537e-4 and
  // rho_ng = 9.31199030637e-9 as for noisy max; eps_0 = 8.3333e-4 and the selection is
  // eps_0-bounded-range: rho_nmax = eps_0^2 / 8 = 8.68055555556e-8 (noisy max: 3.47222e-7);
  // at most floor(rho / (rho_ng + rho_nmax)) = 1408 iterations (noisy max: 379).
  DpagdBudget b = dpagd_budget(exponential_settings(0.1, 1e-8));
  EXPECT_EQ(b.selection, DpagdSelection::Exponential);
  EXPECT_LT(rel(b.rho, 1.35349888537e-4), 1e-9);
  EXPECT_LT(rel(b.epsilon_step, 8.33333333333e-4), 1e-12);
  EXPECT_LT(rel(b.rho_nmax, 8.68055555556e-8), 1e-9);
  EXPECT_LT(rel(b.rho_ng, 9.31199030637e-9), 1e-9);
  EXPECT_EQ(b.max_iterations, 1408);
  // eps = 1.6: rho_nmax = (1.6/120)^2/8 = 2.22222222222e-5, 1353 iterations at most (noisy max: 364).
  b = dpagd_budget(exponential_settings(1.6, 1e-8));
  EXPECT_LT(rel(b.rho_nmax, 2.22222222222e-5), 1e-9);
  EXPECT_EQ(b.max_iterations, 1353);
  // The same scale K C_obj / eps_0 = 600 as noisy max: the same noise, a quarter of the rho.
  EXPECT_LT(rel(dpagd_selection_scale(0.5, 1, dpagd_budget(exponential_settings(0.1, 1e-8))), 600.0), 1e-9);
}

TEST(DpagdExponentialPlan, RecordsTheSelectionAndItsCost) {
  TrainingConfig c = dpagd_config(100, 3, 0.1, 1e-8);
  nlohmann::json p = Dpagd().plan(c).privacy;
  EXPECT_EQ(p["selection"], "noisy_max");
  EXPECT_LT(rel(p["rho_nmax"].get<double>(), 3.47222222222e-7), 1e-9);
  EXPECT_EQ(p["max_iterations"].get<long>(), 379);
  c.options = {{"selection", "exponential"}};
  p = Dpagd().plan(c).privacy;
  EXPECT_EQ(p["selection"], "exponential");
  EXPECT_NE(p["selection_privacy"].get<std::string>().find("eps_0^2/8"), std::string::npos);
  EXPECT_LT(rel(p["rho_nmax"].get<double>(), 8.68055555556e-8), 1e-9);
  EXPECT_LT(rel(p["selection_scale"].get<double>(), 600.0), 1e-9);
  EXPECT_EQ(p["max_iterations"].get<long>(), 1408);
  c.options = {{"selection", "noisy_max"}};  // the default, spelled out
  EXPECT_LT(rel(Dpagd().plan(c).privacy["rho_nmax"].get<double>(), 3.47222222222e-7), 1e-9);
  for (const nlohmann::json& bad : {nlohmann::json("gumbel"), nlohmann::json(1), nlohmann::json(nullptr),
                                    nlohmann::json("Exponential"), nlohmann::json("laplace")}) {
    c.options = {{"selection", bad}};
    try {
      Dpagd().check_arguments(c);
      ADD_FAILURE() << bad.dump() << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidParameter) << e.what();
      EXPECT_NE(std::string(e.what()).find("options.selection"), std::string::npos) << e.what();
      EXPECT_FALSE(e.hint().empty());
    }
  }
}

TEST(DpagdExponentialRun, TwoSplitsPayForOneExponentialLineSearchAndNoNoisyMax) {
  // splits = 2, eps = 0.1, delta = 1e-8: eps_0 = 0.025, rho = 1.35349888537e-4,
  // rho_ng = 8.38079127573e-6. Noisy max: rho_nmax = 3.125e-4 > rho - rho_ng, not one
  // iteration: refused before any pass (DpagdRun.OneSplitIsRefusedBeforeAnyPass).
  // Exponential: rho_nmax = 7.8125e-5 fits once, leaving 4.88440972614e-5 < 7.8125e-5: exactly
  // one line search, whatever it chose (a second gradient or a refinement still fits).
  const InMemoryData t = sparse_problem(200, 5);
  TrainingConfig c = dpagd_config(0, 0, 0.1, 1e-8);
  c.seed = 1;
  c.options = {{"splits", 2}};
  EXPECT_THROW(train(c, t, 1), Error);
  Model m;
  for (int seed = 1; seed <= 5; ++seed) {
    c.seed = seed;
    c.options = {{"splits", 2}, {"selection", "exponential"}};
    m = train(c, t, 1);
    EXPECT_EQ(m.details["privacy"]["line_searches"].get<long>(), 1);
    EXPECT_LT(rel(m.details["privacy"]["rho_nmax"].get<double>(), 7.8125e-5), 1e-12);
    EXPECT_GE(m.details["privacy"]["rho"].get<double>() - m.details["privacy"]["rho_spent"].get<double>(), 0.0);
    expect_filter_respected(m);
  }
}

TEST(DpagdExponentialRun, ConvergesWithinTheBudget) {
  const InMemoryData t = sparse_problem(1500, 7);
  TrainingConfig c = dpagd_config(0, 0, 1.0, 1e-8);
  c.seed = 21;
  c.options = {{"selection", "exponential"}};
  const Model m = train(c, t, 1);
  EXPECT_EQ(m.details["privacy"]["selection"], "exponential");
  EXPECT_GT(binary_accuracy(m, t), 0.85);
  expect_filter_respected(m);
}

TEST(DpagdExponentialRun, ChoosesAStepWithTheMechanismsProbability) {
  // d = 1, 40 rows x = 1: 30 negative, 10 positive; logistic; one candidate step
  // (alpha_max = 0.05), C_obj = 1; eps = 8, delta = 1e-5, splits = 2: eps_0 = 2.
  // At w = 0 each row's gradient is -y x / 2 (norm 0.5 = C_grad): g = 10; sigma =
  // 0.5 / sqrt(2 rho_ng) = 1.2112 (rho_ng = 0.0852074), so dir = +1 (8.3 sigma).
  // Scores (none clipped): Omega_0 = 40 ln 2 = 27.7258872224, Omega_1 = 30 ln(1 + e^-0.05)
  // + 10 ln(1 + e^0.05) = 27.2383859205; scale K C_obj / eps_0 = 0.5, so
  // P(j* = 1) = 1 / (1 + exp(-(Omega_0 - Omega_1) / 0.5)) = 0.726115499070.
  // (With the factor 2 of the non-monotone mechanism: 0.6195; noisy max at the same scale: 0.8114.)
  // j* = 1 takes the step (progress_done() = 1); j* = 0 refines (0).
  InMemoryData t;
  for (int i = 0; i < 40; ++i) {
    t.x.push_back({1.0});
    t.y.push_back(i < 10 ? 1.0 : 0.0);
  }
  TrainingConfig c = dpagd_config(40, 1, 8.0, 1e-5);
  c.options = {{"selection", "exponential"}, {"splits", 2}, {"candidates", 1}, {"alpha_max", 0.05},
               {"loss_clip", 1}};
  const int runs = 4000;
  int steps = 0;
  for (int seed = 1; seed <= runs; ++seed) {
    c.seed = static_cast<std::uint64_t>(seed);
    std::unique_ptr<dptrain::Run> run = start_run(c);
    for (int pass = 0; pass < 2; ++pass) {
      std::optional<Pass> p = run->next();
      ASSERT_TRUE(p);
      std::vector<double> s = p->input;
      for (std::size_t i = 0; i < t.x.size(); ++i) gradient_state::add_row(s.data(), t.x[i].data(), 1, t.y[i]);
      if (pass == 1) {  // the scores the mechanism sees
        ASSERT_NEAR(gradient_state::loss_sum(s.data(), 0, 0), 27.7258872224, 1e-9);
        ASSERT_NEAR(gradient_state::loss_sum(s.data(), 1, 0), 27.2383859205, 1e-9);
      }
      run->accept(s.data(), s.size());
    }
    steps += run->progress_done() == 1;
  }
  // Binomial(4000, 0.7261): sd 28.2 draws = 0.0071 in frequency; 0.035 is 5 sd, and the
  // factor-2 mechanism and noisy max are 15 and 12 sd away.
  std::printf("[ dpagd ] exponential selection: step in %d of %d runs (expected 0.7261)\n", steps, runs);
  EXPECT_NEAR(steps / static_cast<double>(runs), 0.726115499070, 0.035);
}

}  // namespace
}  // namespace dptrain
