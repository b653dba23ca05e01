// bench/amp_prototype: test accuracy of AMP (Iyengar et al. 2019) and of the
// non-private optimum, run in memory (bench/lib/amp_in_memory.h) on the
// AMP paper's Adult split and KDD Cup 99 rows, the official Adult split
// (rows of unit norm, as `make demo` loads it) and KDD Cup 99's seeded split. Noise is seeded per
// run (seed, run) so the numbers can be regenerated: these are measurements,
// not private releases.
//
//   build/bench/amp_prototype --dataset adult-paper [--epsilon 0.1] [--runs 10]
//       [--options '{"f":0.01}'] [--loss logistic|huber_svm] [--lambda 0]
//       [--algorithm amp|optimum] [--grid] [--data ../shared/data] [--seed 1]
//       [--dump PREFIX]   (writes PREFIX.train.csv / PREFIX.test.csv: label, features)
//   --delta defaults to 1/n^2 (n = training rows). --grid runs the paper's
//   Table II grid f x f1 x L (tuning on test accuracy: NOT private, as in
//   the paper) and prints every cell and the best mean.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "amp_data.h"
#include "amp_in_memory.h"
#include "core/error.h"

namespace db = dptrain::bench;
using dptrain::TrainingConfig;

namespace {

struct Args {
  std::string data, dataset = "adult-paper", algorithm = "amp", loss = "logistic", options = "{}";
  double epsilon = 0.1, lambda = 0;
  double delta = 0;  // 0: 1/n^2
  int runs = 10;
  std::uint64_t seed = 1;
  bool grid = false;
  std::string dump;
};

// label (0/1) then the features, one row per line: for bench/amp_sklearn_baseline.py.
void dump_csv(const db::LabeledRows& rows, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) dptrain::fail(dptrain::ErrorKind::InvalidParameter, "cannot write " + path);
  for (Eigen::Index i = 0; i < rows.x.rows(); ++i) {
    std::fprintf(f, "%d", rows.classes[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < rows.x.cols(); ++j) std::fprintf(f, ",%.17g", rows.x(i, j));
    std::fputc('\n', f);
  }
  std::fclose(f);
}

db::TrainTest load(const Args& a) {
  if (a.dataset == "adult-paper") return db::adult_amp_paper(a.data);
  if (a.dataset == "kdd-paper") return db::kdd_amp_paper(a.data);
  dptrain::loader::LoadOptions o;
  o.csv.header = false;
  if (a.dataset == "adult-official") {
    o.file = a.data + "/adult/adult.data.gz";
    o.test_file = a.data + "/adult/adult.test.gz";
    o.csv.drop_missing = true;
    o.labels.positive = ">50K";
    return db::load_set(o, "adult, official split (30,162 / 15,060), min-max, rows of unit norm");
  }
  if (a.dataset == "kdd") {
    o.file = a.data + "/kddcup99/kddcup.data_10_percent.gz";
    o.test_rows = a.data + "/splits/kddcup99.test_rows.txt.gz";
    o.labels.positive = "normal";
    return db::load_set(o, "kddcup99 10%, seeded split (395,217 / 98,804), min-max, rows of unit norm");
  }
  if (a.dataset == "mnist10k") {
    o.file = a.data + "/mnist/t10k-images-idx3-ubyte.gz";
    o.test_rows = a.data + "/splits/mnist10k.test_rows.txt.gz";
    return db::load_set(o, "mnist10k, seeded split (8,000 / 2,000), pixels / 255, rows of unit norm, 10 classes");
  }
  dptrain::fail(dptrain::ErrorKind::InvalidParameter, "unknown dataset " + a.dataset, {},
                "adult-paper | kdd-paper | adult-official | kdd | mnist10k");
}

TrainingConfig config(const Args& a, const db::TrainTest& t, const nlohmann::json& options) {
  TrainingConfig c;
  c.algorithm = a.algorithm;
  c.loss = a.loss;
  c.rows = t.train.x.rows();
  c.dim = static_cast<int>(t.train.x.cols());
  c.classes = {"0", "1"};
  if (t.models > 1) {
    c.classes.clear();
    for (int k = 0; k < t.models; ++k) c.classes.push_back(std::to_string(k));
  }
  c.lambda = a.lambda;
  c.options = options;
  if (a.algorithm == "amp") {
    c.epsilon = a.epsilon;
    c.delta = a.delta > 0 ? a.delta : 1.0 / (static_cast<double>(c.rows) * static_cast<double>(c.rows));
  }
  return c;
}

struct Summary {
  double mean = 0, sd = 0;
  int failures = 0;
  double passes = 0;
};

// `runs` AMP runs with one plan; accuracy on the test rows.
Summary amp_runs(const Args& a, const db::TrainTest& t, const dptrain::amp::AmpPlan& plan,
                 const dptrain::optim::InMemoryGlm& glm, bool verbose) {
  std::vector<double> acc;
  Summary s;
  for (int run = 0; run < a.runs; ++run) {
    auto rng = dptrain::privacy::RandomSource::seeded(a.seed, static_cast<std::uint64_t>(run));
    const db::InMemoryOutcome out = db::run_amp(plan, glm, rng);
    s.passes += out.passes;
    if (!out.released) {
      ++s.failures;
      if (verbose) std::printf("  run %d: NOT RELEASED (%s)\n", run, out.failure.c_str());
      continue;
    }
    acc.push_back(db::accuracy(out.weights, t.test.x, t.test.classes));
    if (verbose) std::printf("  run %d: accuracy %.4f, %d passes\n", run, acc.back(), out.passes);
  }
  s.passes /= a.runs;
  for (double v : acc) s.mean += v / acc.size();
  for (double v : acc) s.sd += (v - s.mean) * (v - s.mean) / std::max<std::size_t>(1, acc.size() - 1);
  s.sd = std::sqrt(s.sd);
  return s;
}

void run_optimum(const Args& a, const db::TrainTest& t) {
  const auto plan = dptrain::optimum::make_plan(config(a, t, nlohmann::json::parse(a.options)));
  const dptrain::optim::InMemoryGlm glm(t.train.x, t.train.classes, t.models, plan.loss, plan.huber_h,
                                       plan.feature_bound);
  const db::InMemoryOutcome out = db::run_optimum(plan, glm);
  if (!out.released) {
    std::printf("optimum: FAILED (%s)\n", out.failure.c_str());
    return;
  }
  std::printf("optimum lambda=%g: test accuracy %.4f, train accuracy %.4f, %d passes\n", plan.lambda,
              db::accuracy(out.weights, t.test.x, t.test.classes), db::accuracy(out.weights, t.train.x, t.train.classes),
              out.passes);
}

void run_amp(const Args& a, const db::TrainTest& t) {
  const auto plan = dptrain::amp::make_plan(config(a, t, nlohmann::json::parse(a.options)));
  std::printf("AMP %s: eps=%g delta=%.4g f=%g f1=%.6f L=%g gamma=%.4g Lambda=%.4f sigma1=%.5g sigma2=%.5g %s\n",
              plan.hyperparameter_free ? "hyperparameter-free" : "tuned", plan.epsilon, plan.delta, plan.f, plan.f1,
              plan.lipschitz, plan.gamma, plan.regularization, plan.sigma1, plan.sigma2,
              dptrain::optim::method_name(plan.solver.method).c_str());
  const dptrain::optim::InMemoryGlm glm(t.train.x, t.train.classes, t.models, plan.loss, plan.huber_h,
                                       plan.lipschitz);
  const Summary s = amp_runs(a, t, plan, glm, true);
  std::printf("mean test accuracy %.2f%% +- %.2f (sd over %d runs), %d not released, %.1f passes per run\n",
              100 * s.mean, 100 * s.sd, a.runs - s.failures, s.failures, s.passes);
}

// The paper's Table II grid (tuning on test accuracy: not private).
void run_grid(const Args& a, const db::TrainTest& t) {
  std::map<double, std::unique_ptr<dptrain::optim::InMemoryGlm>> by_l;
  double best = -1;
  std::string best_cell;
  for (double f : {0.001, 0.01, 0.1, 0.5})
    for (double f1 : {0.9, 0.92, 0.95, 0.98, 0.99})
      for (double L : {0.1, 1.0, 10.0, 100.0}) {
        const auto plan = dptrain::amp::make_plan(config(a, t, {{"f", f}, {"f1", f1}, {"L", L}}));
        auto& glm = by_l[L];
        if (!glm)
          glm = std::make_unique<dptrain::optim::InMemoryGlm>(t.train.x, t.train.classes, t.models, plan.loss,
                                                              plan.huber_h, L);
        const Summary s = amp_runs(a, t, plan, *glm, false);
        char cell[96];
        std::snprintf(cell, sizeof(cell), "f=%g f1=%g L=%g", f, f1, L);
        std::printf("%-28s %.2f%% +- %.2f  (%d not released, %.1f passes)\n", cell, 100 * s.mean, 100 * s.sd,
                    s.failures, s.passes);
        std::fflush(stdout);
        if (s.failures == 0 && s.mean > best) {
          best = s.mean;
          best_cell = cell;
        }
      }
  std::printf("best cell: %s with %.2f%%\n", best_cell.c_str(), 100 * best);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"AMP and the non-private optimum, in memory: test accuracy"};
  Args a;
  const char* env = std::getenv("DPTRAIN_DATA");
  a.data = env ? env : "../shared/data";
  app.add_option("--data", a.data, "shared/data directory")->capture_default_str();
  app.add_option("--dataset", a.dataset, "adult-paper | kdd-paper | adult-official | kdd | mnist10k")->capture_default_str();
  app.add_option("--algorithm", a.algorithm, "amp | optimum")->capture_default_str();
  app.add_option("--loss", a.loss, "logistic | huber_svm")->capture_default_str();
  app.add_option("--epsilon", a.epsilon, "total epsilon")->capture_default_str();
  app.add_option("--delta", a.delta, "delta (default 1/n^2)");
  app.add_option("--lambda", a.lambda, "L2 term (lambda/2)||w||^2")->capture_default_str();
  app.add_option("--options", a.options, "algorithm options as JSON")->capture_default_str();
  app.add_option("--runs", a.runs, "runs per setting")->capture_default_str();
  app.add_option("--seed", a.seed, "noise seed (run r uses stream r)")->capture_default_str();
  app.add_flag("--grid", a.grid, "the paper's tuning grid f x f1 x L (not private)");
  app.add_option("--dump", a.dump, "write the rows to PREFIX.train.csv and PREFIX.test.csv and stop");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto start = std::chrono::steady_clock::now();
    const db::TrainTest t = load(a);
    std::printf("%s: %ld train x %ld features, %ld test\n", t.description.c_str(), static_cast<long>(t.train.x.rows()),
                static_cast<long>(t.train.x.cols()), static_cast<long>(t.test.x.rows()));
    if (!a.dump.empty()) {
      dump_csv(t.train, a.dump + ".train.csv");
      dump_csv(t.test, a.dump + ".test.csv");
    } else if (a.algorithm == "optimum") run_optimum(a, t);
    else if (a.grid) run_grid(a, t);
    else run_amp(a, t);
    std::printf("%.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  } catch (const dptrain::Error& e) {
    std::fprintf(stderr, "error: %s %s %s\n", e.what(), e.detail().c_str(), e.hint().c_str());
    return 1;
  }
  return 0;
}
