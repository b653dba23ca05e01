// bench/dpsgd_prototype: the DP-SGD family (src/core/dpsgd) in memory on UCI Adult, loaded
// exactly as `make demo` loads it (official split, rows with '?' dropped, one-hot + min-max,
// rows scaled to norm 1; controller/lib/loader), logistic loss, (epsilon, delta) = (1, 1e-5),
// expected lot 250, T = 10,000 lots (Mohapatra et al.'s setting).
//
//   build/bench/dpsgd_prototype [--data DIR] [--runs 5] [--experiments grid,wosm,adadp,lt,timing]
//                               [--steps 10000] [--lot 250] [--epsilon 1] [--delta 1e-5] [--seed 1]
//
// grid    dpsgd over Mohapatra et al.'s public grid (alpha in {0.001 .. 1} x C in {0.1, 0.2, 0.5, 1})
//         and dpadam over its C grid (alpha = 1e-3): mean test accuracy of `runs` runs per
//         point. Picking the best point by TEST accuracy is the papers' non-private protocol
//         (a reference, not a private result).
// wosm    dpadamwosm with its default effective step size, each C of the grid.
// adadp   ADADP (eta0 = 1e-3, tau = sqrt(d / (2T))), each C of the grid.
// lt      end-to-end private tuning: Liu-Talwar random stopping over the dpadam C grid
//         (gamma = 1/4) and the dpsgd grid (gamma = 1/40), total (epsilon, delta); each
//         candidate trains on a random 90% of the training rows and is scored by a
//         Laplace-noised count of correct predictions on the other 10% (parallel composition:
//         each candidate is (eps1, delta1)-DP). Test accuracy of the released model, `runs`
//         searches.
// timing  wall time of one run of T lots (plan = sigma calibration, and the lots), in memory.
// Every run uses the same code as the database driver will (lot_state passes of 1000 lots).
// Keys come from RandomSource::seeded(seed, run) (reproducible; a bench, not a release).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/dpsgd/in_memory.h"
#include "core/error.h"
#include "core/dpsgd/plan.h"
#include "core/privacy/random_source.h"
#include "core/selection/liu_talwar.h"
#include "loader/dataset.h"

namespace dpsgd = dptrain::dpsgd;
namespace privacy = dptrain::privacy;
namespace loader = dptrain::loader;
using dptrain::loader::Part;

namespace {

struct Rows {
  std::vector<double> x;
  std::vector<int> y;
  std::int64_t n = 0;
  int d = 0;
  dpsgd::LabeledRows view() const { return {x.data(), y.data(), n, d}; }
};

struct Adult {
  Rows train, test;
};

Adult load_adult(const std::string& dir) {
  loader::LoadOptions o;
  o.file = dir + "/adult/adult.data.gz";
  o.test_file = dir + "/adult/adult.test.gz";
  o.csv.header = false;
  o.csv.drop_missing = true;
  o.csv.column_names = {"age",          "workclass",    "fnlwgt",         "education", "education_num",
                        "marital_status", "occupation", "relationship",   "race",      "sex",
                        "capital_gain", "capital_loss", "hours_per_week", "native_country", "income"};
  o.labels.positive = ">50K";
  loader::Dataset data(o);
  Adult a;
  for (Part p : {Part::Train, Part::Test}) {
    Rows& r = p == Part::Train ? a.train : a.test;
    r.n = static_cast<std::int64_t>(data.rows(p));
    r.d = static_cast<int>(data.dims());
    r.x.resize(static_cast<std::size_t>(r.n) * r.d);
    r.y.resize(static_cast<std::size_t>(r.n));
    for (std::int64_t i = 0; i < r.n; ++i)
      r.y[i] = data.row(p, static_cast<std::size_t>(i), r.x.data() + i * r.d).boolean ? 1 : 0;
  }
  return a;
}

std::int64_t correct(const double* theta, const Rows& rows) {
  std::int64_t c = 0;
  for (std::int64_t i = 0; i < rows.n; ++i) {
    double dot = 0;
    for (int j = 0; j < rows.d; ++j) dot += theta[j] * rows.x[i * rows.d + j];
    c += (dot > 0) == (rows.y[i] == 1);
  }
  return c;
}

double accuracy(const double* theta, const Rows& rows) { return static_cast<double>(correct(theta, rows)) / rows.n; }

struct Settings {
  std::int64_t steps = 10000;
  double lot = 250, epsilon = 1, delta = 1e-5;
  int runs = 5;
  std::uint64_t seed = 1;
};

dpsgd::DpSgdRequest request(const Settings& s, const std::string& algorithm, std::int64_t rows, int d, double clip) {
  dpsgd::DpSgdRequest r;
  r.algorithm = algorithm;
  r.rows = rows;
  r.dim = d;
  r.expected_lot = s.lot;
  r.steps = s.steps;
  r.clip_norm = clip;
  r.epsilon = s.epsilon;
  r.delta = s.delta;
  return r;
}

privacy::RandomSource::Key run_key(std::uint64_t seed, std::uint64_t run) {
  privacy::RandomSource rng = privacy::RandomSource::seeded(seed, run);
  return privacy::draw_key(rng);
}

std::uint64_t g_run = 0;  // every training run gets its own key

std::vector<double> train(const dpsgd::DpSgdPlan& plan, const Rows& rows, std::uint64_t seed) {
  return dpsgd::train_in_memory(plan, rows.view(), run_key(seed, ++g_run), true);
}

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }
double sd(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return v.size() > 1 ? std::sqrt(s / (v.size() - 1)) : 0.0;
}

struct PointResult {
  std::string label;
  double mean, sd;
};

PointResult run_point(const Settings& s, const Adult& a, dpsgd::DpSgdRequest r, const std::string& label) {
  const dpsgd::DpSgdPlan plan = dpsgd::plan_dpsgd(r);
  std::vector<double> acc;
  for (int i = 0; i < s.runs; ++i) {
    const auto state = train(plan, a.train, s.seed);
    acc.push_back(accuracy(dpsgd::lot_state::theta(state.data()), a.test));
  }
  std::printf("%-44s sigma %.4f  eps %.6f  test accuracy %.4f +- %.4f\n", label.c_str(),
              plan.account.noise_multiplier, plan.epsilon, mean(acc), sd(acc));
  std::fflush(stdout);
  return {label, mean(acc), sd(acc)};
}

const std::vector<double> kClips = {0.1, 0.2, 0.5, 1};
const std::vector<double> kSgdRates = {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1};

PointResult best_of(const std::vector<PointResult>& v) {
  return *std::max_element(v.begin(), v.end(), [](auto& x, auto& y) { return x.mean < y.mean; });
}

std::string fmt(const char* f, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), f, a, b);
  return buf;
}

void grid(const Settings& s, const Adult& a) {
  std::printf("\n== grid: dpsgd (alpha x C) and dpadam (C), mean of %d runs\n", s.runs);
  std::vector<PointResult> sgd, adam;
  for (double c : kClips)
    for (double alpha : kSgdRates) {
      auto r = request(s, "dpsgd", a.train.n, a.train.d, c);
      r.learning_rate = alpha;
      sgd.push_back(run_point(s, a, r, fmt("dpsgd alpha=%g C=%g", alpha, c)));
    }
  for (double c : kClips) adam.push_back(run_point(s, a, request(s, "dpadam", a.train.n, a.train.d, c),
                                                   fmt("dpadam alpha=0.001 C=%g", c)));
  const PointResult bs = best_of(sgd), ba = best_of(adam);
  std::printf("BEST dpsgd:  %s  %.4f +- %.4f\nBEST dpadam: %s  %.4f +- %.4f\n", bs.label.c_str(), bs.mean, bs.sd,
              ba.label.c_str(), ba.mean, ba.sd);
}

void defaults(const Settings& s, const Adult& a, const std::string& algorithm) {
  std::printf("\n== %s with its default step, each C, mean of %d runs\n", algorithm.c_str(), s.runs);
  for (double c : kClips) run_point(s, a, request(s, algorithm, a.train.n, a.train.d, c), algorithm + fmt(" C=%g", c));
}

// One Liu-Talwar search over `grid` (each entry a request template for n_train rows).
double liu_talwar_search(const Settings& s, const Adult& a, const std::vector<dpsgd::DpSgdRequest>& grid,
                         std::uint64_t search, std::int64_t* runs_out) {
  privacy::RandomSource rng = privacy::RandomSource::seeded(s.seed + 1000, search);
  const double gamma = 1.0 / static_cast<double>(grid.size());
  const dptrain::selection::LiuTalwarBudget budget = dptrain::selection::liu_talwar_budget(s.epsilon, s.delta, gamma);
  // Data-independent split by one coin per row: 10% validation.
  Rows tr, va;
  tr.d = va.d = a.train.d;
  for (std::int64_t i = 0; i < a.train.n; ++i) {
    Rows& to = rng.uniform_open01() < 0.1 ? va : tr;
    to.x.insert(to.x.end(), a.train.x.begin() + i * a.train.d, a.train.x.begin() + (i + 1) * a.train.d);
    to.y.push_back(a.train.y[i]);
    ++to.n;
  }
  dptrain::selection::RandomStopping search_state(gamma, budget.max_candidates, grid.size());
  std::vector<double> best_theta;
  while (auto point = search_state.next(rng)) {
    dpsgd::DpSgdRequest r = grid[*point];
    r.rows = tr.n;
    r.epsilon = budget.candidate_epsilon;
    r.delta = budget.candidate_delta;
    const auto state = train(dpsgd::plan_dpsgd(r), tr, s.seed);
    const double score = dptrain::selection::noisy_count_score(
        correct(dpsgd::lot_state::theta(state.data()), va), budget.candidate_epsilon, rng);
    const std::int64_t before = search_state.best_run();
    search_state.record(score, rng);
    if (search_state.best_run() != before)
      best_theta.assign(dpsgd::lot_state::theta(state.data()), dpsgd::lot_state::theta(state.data()) + tr.d);
  }
  *runs_out = search_state.candidates_run();
  return accuracy(best_theta.data(), a.test);
}

void liu_talwar(const Settings& s, const Adult& a) {
  std::vector<dpsgd::DpSgdRequest> adam, sgd;
  for (double c : kClips) adam.push_back(request(s, "dpadam", a.train.n, a.train.d, c));
  for (double c : kClips)
    for (double alpha : kSgdRates) {
      auto r = request(s, "dpsgd", a.train.n, a.train.d, c);
      r.learning_rate = alpha;
      sgd.push_back(r);
    }
  for (auto [name, grid] : {std::pair<const char*, const std::vector<dpsgd::DpSgdRequest>*>{"dpadam C grid", &adam},
                            {"dpsgd alpha x C grid", &sgd}}) {
    const auto b = dptrain::selection::liu_talwar_budget(s.epsilon, s.delta, 1.0 / grid->size());
    std::printf("\n== Liu-Talwar over the %s (%zu points, gamma = 1/%zu): total (%g, %g), T = %lld, "
                "per candidate (%.6f, %.3g)\n",
                name, grid->size(), grid->size(), b.total.epsilon, b.total.delta,
                static_cast<long long>(b.max_candidates), b.candidate_epsilon, b.candidate_delta);
    std::vector<double> acc;
    for (int i = 0; i < s.runs; ++i) {
      std::int64_t runs = 0;
      acc.push_back(liu_talwar_search(s, a, *grid, static_cast<std::uint64_t>(i), &runs));
      std::printf("  search %d: %lld candidates, released model test accuracy %.4f\n", i,
                  static_cast<long long>(runs), acc.back());
      std::fflush(stdout);
    }
    std::printf("LT %s: mean test accuracy %.4f +- %.4f\n", name, mean(acc), sd(acc));
  }
}

void timing(const Settings& s, const Adult& a) {
  std::printf("\n== timing: one dpsgd run, T = %lld lots of expected size %g, d = %d\n",
              static_cast<long long>(s.steps), s.lot, a.train.d);
  for (int i = 0; i < 3; ++i) {
    auto r = request(s, "dpsgd", a.train.n, a.train.d, 0.5);
    r.learning_rate = 0.1;
    const auto t0 = std::chrono::steady_clock::now();
    const dpsgd::DpSgdPlan plan = dpsgd::plan_dpsgd(r);
    const auto t1 = std::chrono::steady_clock::now();
    const auto state = train(plan, a.train, s.seed);
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("plan (sigma calibration) %.3f s, lots %.3f s (%.2f us per lot), accuracy %.4f\n",
                std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(),
                std::chrono::duration<double>(t2 - t1).count() / s.steps * 1e6,
                accuracy(dpsgd::lot_state::theta(state.data()), a.test));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"DP-SGD family on Adult, in memory"};
  std::string data_dir = "../shared/data", experiments = "grid,wosm,adadp,lt,timing";
  Settings s;
  app.add_option("--data", data_dir, "the shared data directory (adult/ inside)");
  app.add_option("--experiments", experiments, "comma-separated: grid, wosm, adadp, lt, timing");
  app.add_option("--runs", s.runs, "runs per grid point / searches")->check(CLI::PositiveNumber);
  app.add_option("--steps", s.steps, "lots T")->check(CLI::PositiveNumber);
  app.add_option("--lot", s.lot, "expected lot size")->check(CLI::PositiveNumber);
  app.add_option("--epsilon", s.epsilon, "epsilon")->check(CLI::PositiveNumber);
  app.add_option("--delta", s.delta, "delta")->check(CLI::PositiveNumber);
  app.add_option("--seed", s.seed, "seed of the run keys (bench only)");
  CLI11_PARSE(app, argc, argv);

  try {
    const Adult a = load_adult(data_dir);
    std::printf("Adult: %lld train, %lld test rows, d = %d; logistic, eps = %g, delta = %g, lot %g, T = %lld\n",
                static_cast<long long>(a.train.n), static_cast<long long>(a.test.n), a.train.d, s.epsilon, s.delta,
                s.lot, static_cast<long long>(s.steps));
    std::set<std::string> want;
    std::stringstream ss(experiments);
    for (std::string e; std::getline(ss, e, ',');) want.insert(e);
    if (want.count("timing")) timing(s, a);
    if (want.count("grid")) grid(s, a);
    if (want.count("wosm")) defaults(s, a, "dpadamwosm");
    if (want.count("adadp")) defaults(s, a, "adadp");
    if (want.count("lt")) liu_talwar(s, a);
  } catch (const dptrain::Error& e) {
    std::fprintf(stderr, "error: %s %s\n", e.what(), e.detail().c_str());
    return 1;
  }
  return 0;
}
