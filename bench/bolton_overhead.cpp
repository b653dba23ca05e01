// bench/bolton_overhead: the runtime cost of bolt-on privacy, measured as the
// ratio of a bolt-on training run to the same noiseless run (algorithm
// 'none') in one process run: same table, same hyperparameters (step size,
// lambda, radius, batch, epochs), same seed for the shuffle. Bolt-on adds
// noise once, after the last epoch (Wu et al. §4.4 "virtually no overhead"),
// so the target is a ratio <= 1.01.
//
//   build/bench/bolton_overhead --db "..." [--rows 400000] [--dim 20] [--epochs 5] [--repeat 5]
//
// Each run is one dp_train call inside BEGIN ... ROLLBACK (nothing is kept),
// timed by the client (wall clock) and, when the server runs on this machine,
// by the CPU time the server backend spent on it (/proc/<pid>/schedstat, in
// ns): on a shared machine the wall clock mostly measures the other tenants,
// the backend's CPU time measures the work. Runs alternate none / bolton
// (then bolton / none) so that drifts hit both sides alike. Prints every
// pair and, per measure, the ratio of the medians and the ratio of the
// minima, for the convex case (lambda = 0) and the strongly convex case
// (lambda > 0, the same projection radius given to both).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>

#include "core/sgd/epoch_state.h"
#include "core/engine/epoch_run.h"
#include "pg_connection.h"
#include "synthetic_table.h"

using dptrain::client::PgConnection;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Timing {
  double wall = 0;    // client-measured seconds of the dp_train call
  double cpu = 0;     // seconds the server backend was on a CPU during the call (0 if unknown)
  double epochs = 0;  // details.seconds: the server's time from the first epoch to the release
};

std::string backend_schedstat;  // /proc/<backend pid>/schedstat, if readable

// Nanoseconds the backend has run on a CPU (first field of schedstat), or -1.
double backend_cpu_ns() {
  std::ifstream in(backend_schedstat);
  double ns = -1;
  if (!(in >> ns)) return -1;
  return ns;
}

Timing run(PgConnection& c, const std::string& table, const std::string& algorithm, const std::string& args) {
  c.exec("BEGIN");
  const double cpu0 = backend_cpu_ns();
  const auto t0 = std::chrono::steady_clock::now();
  dptrain::client::PgResult r = c.exec("SELECT (details->>'seconds')::float8 FROM dp_train('" + table +
                                       "', 'y', 'x', algorithm => '" + algorithm + "', " + args + ")");
  Timing t;
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu1 = backend_cpu_ns();
  t.cpu = cpu0 >= 0 && cpu1 >= 0 ? (cpu1 - cpu0) / 1e9 : 0.0;
  t.epochs = std::stod(r.get(0, 0));
  c.exec("ROLLBACK");
  return t;
}

double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Median of the ratios and a 95% percentile-bootstrap interval for it
// (2000 resamples of the pairs, fixed generator: reproducible).
void median_with_interval(const std::vector<double>& ratios, double* med, double* lo, double* hi) {
  *med = median(ratios);
  std::uint64_t state = 88172645463325252ULL;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  std::vector<double> medians;
  for (int b = 0; b < 2000; ++b) {
    std::vector<double> sample;
    for (std::size_t i = 0; i < ratios.size(); ++i) sample.push_back(ratios[next() % ratios.size()]);
    medians.push_back(median(sample));
  }
  std::sort(medians.begin(), medians.end());
  *lo = medians[50];
  *hi = medians[1949];
}

// The only work bolt-on adds to a run happens in the controller: its plan
// (sensitivity, noise calibration) and its release (one noise draw per
// model). Measured here in-process, without the database, for the same
// configuration: seconds per run for `algorithm`, plan + release.
double controller_seconds(const std::string& algorithm, long rows, int dim, int epochs, int batch,
                          const std::string& eta, bool privacy_delta, double lambda) {
  dptrain::TrainingConfig c;
  c.algorithm = algorithm;
  c.rows = rows;
  c.dim = dim;
  c.classes = {"false", "true"};
  c.epochs = epochs;
  c.batch_size = batch;
  c.lambda = lambda;
  if (lambda > 0) {
    c.radius = 1000;
    c.schedule = "strongly_convex";
  } else {
    c.learning_rate = std::stod(eta);
  }
  if (algorithm == "bolton") {
    c.epsilon = 0.1;
    if (privacy_delta) c.delta = 1e-12;
  }
  const int n = 2000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    dptrain::EpochRun t(c);
    while (std::optional<dptrain::Pass> p = t.next()) {
      std::vector<double> s = p->input;  // stands in for the aggregate's result
      s[dptrain::epoch_state::kRows] = static_cast<double>(rows);
      s[dptrain::epoch_state::kUpdates] += static_cast<double>((rows + batch - 1) / batch);
      t.accept(s.data(), s.size());
    }
    t.release(0.0);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n;
}

void compare(PgConnection& c, const std::string& table, const std::string& label, const std::string& common,
             const std::string& privacy, int repeat, double controller_extra) {
  std::vector<double> none_wall, bolton_wall, none_cpu, bolton_cpu, none_epochs, bolton_epochs, wall_ratio, cpu_ratio;
  run(c, table, "none", common);  // warm-up: caches, plan, buffers
  std::printf("\n%s\n  common arguments: %s\n  bolton adds: %s\n", label.c_str(), common.c_str(), privacy.c_str());
  std::printf("  %-5s %10s %10s %8s   %10s %10s %8s\n", "pair", "none_wall", "bolt_wall", "ratio", "none_cpu",
              "bolt_cpu", "ratio");
  for (int i = 0; i < repeat; ++i) {
    Timing n, b;
    if (i % 2 == 0) {
      n = run(c, table, "none", common);
      b = run(c, table, "bolton", common + ", " + privacy);
    } else {
      b = run(c, table, "bolton", common + ", " + privacy);
      n = run(c, table, "none", common);
    }
    none_wall.push_back(n.wall);
    bolton_wall.push_back(b.wall);
    none_cpu.push_back(n.cpu);
    bolton_cpu.push_back(b.cpu);
    none_epochs.push_back(n.epochs);
    bolton_epochs.push_back(b.epochs);
    wall_ratio.push_back(b.wall / n.wall);
    if (n.cpu > 0) cpu_ratio.push_back(b.cpu / n.cpu);
    std::printf("  %-5d %10.4f %10.4f %8.4f   %10.4f %10.4f %8.4f\n", i + 1, n.wall, b.wall, b.wall / n.wall, n.cpu,
                b.cpu, n.cpu > 0 ? b.cpu / n.cpu : 0.0);
    std::fflush(stdout);
  }
  std::printf("  wall clock:       medians none %.4f s, bolton %.4f s: ratio %.4f; minima ratio %.4f\n",
              median(none_wall), median(bolton_wall), median(bolton_wall) / median(none_wall),
              minimum(bolton_wall) / minimum(none_wall));
  if (minimum(none_cpu) > 0)
    std::printf("  backend CPU time: medians none %.4f s, bolton %.4f s: ratio %.4f; minima ratio %.4f\n",
                median(none_cpu), median(bolton_cpu), median(bolton_cpu) / median(none_cpu),
                minimum(bolton_cpu) / minimum(none_cpu));
  std::printf("  server epochs+release (details.seconds, wall): medians none %.4f s, bolton %.4f s: ratio %.4f\n",
              median(none_epochs), median(bolton_epochs), median(bolton_epochs) / median(none_epochs));
  double med, lo, hi;
  median_with_interval(wall_ratio, &med, &lo, &hi);
  std::printf("  pairwise ratio bolton/none, wall clock:       median %.4f (95%% bootstrap interval %.4f .. %.4f)\n", med,
              lo, hi);
  if (!cpu_ratio.empty()) {
    median_with_interval(cpu_ratio, &med, &lo, &hi);
    std::printf("  pairwise ratio bolton/none, backend CPU time: median %.4f (95%% bootstrap interval %.4f .. %.4f)\n",
                med, lo, hi);
  }
  std::printf("  the extra work itself (plan + release in the controller, measured in-process): %.1f us per run,\n"
              "  i.e. a ratio of %.6f against the median noiseless run of %.4f s\n",
              controller_extra * 1e6, 1.0 + controller_extra / median(none_wall), median(none_wall));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"runtime ratio of bolt-on training to the same noiseless training"};
  std::string db, table = "bench_bolton_overhead";
  long rows = 400000;
  int dim = 20, epochs = 5, repeat = 9, batch = 50;
  app.add_option("--db", db, "libpq connection string");
  app.add_option("--rows", rows)->capture_default_str();
  app.add_option("--dim", dim)->capture_default_str();
  app.add_option("--epochs", epochs)->capture_default_str();
  app.add_option("--batch-size", batch)->capture_default_str();
  app.add_option("--repeat", repeat, "pairs of runs per case")->capture_default_str();
  app.add_option("--table", table)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  PgConnection c(db);
  c.on_notice = [](const std::string&, const std::string&) {};
  c.exec("CREATE EXTENSION IF NOT EXISTS dptrain");
  backend_schedstat = "/proc/" + c.exec("SELECT pg_backend_pid()").get(0, 0) + "/schedstat";
  if (backend_cpu_ns() < 0) std::cerr << "(the server is not local: wall-clock times only)\n";
  const std::string qtable = dptrain::bench::ensure_synthetic_table(c, table, rows, dim);
  const std::string size = c.exec("SELECT pg_size_pretty(pg_total_relation_size($1::regclass))", {qtable}).get(0, 0);
  std::printf("table: %ld rows x %d features (%s); %d epochs, batch size %d, %d pairs per case\n", rows, dim,
              size.c_str(), epochs, batch, repeat);

  char eta[64];
  std::snprintf(eta, sizeof(eta), "%.17g", 1.0 / std::sqrt(static_cast<double>(rows)));
  const std::string base = "epochs => " + std::to_string(epochs) + ", batch_size => " + std::to_string(batch) +
                           ", classes => ARRAY['false', 'true'], seed => 1";
  const double convex_extra = controller_seconds("bolton", rows, dim, epochs, batch, eta, true, 0) -
                              controller_seconds("none", rows, dim, epochs, batch, eta, false, 0);
  const double sc_extra = controller_seconds("bolton", rows, dim, epochs, batch, eta, false, 1e-3) -
                          controller_seconds("none", rows, dim, epochs, batch, eta, false, 1e-3);
  compare(c, qtable, "convex (lambda = 0, constant step 1/sqrt(n)), (epsilon, delta)-DP",
          base + ", lambda => 0, learning_rate => " + std::string(eta), "epsilon => 0.1, delta => 1e-12", repeat,
          convex_extra);
  compare(c, qtable, "strongly convex (lambda = 1e-3, step min(1/beta, 1/(lambda t)), projection radius 1000), epsilon-DP",
          base + ", lambda => 0.001, radius => 1000, schedule => 'strongly_convex'", "epsilon => 0.1", repeat,
          sc_extra);
  return 0;
}
