// bench/runtime: the runtime study of Bolt-on (Wu et al., SIGMOD'17, Figures
// 2 and 5) on dptrain: how much does private SGD cost per epoch compared
// with noiseless SGD, for noiseless, bolt-on (noise once, at the end),
// SCS13 (noise on every mini-batch, inside the aggregate) and BST14 (noise on
// every freshly sampled mini-batch)?
//
//   build/bench/runtime --db "..." --experiment overhead|epochs|batch|scale [options] --out DIR
//
// Every experiment drives the epochs exactly like `dptrain train` does (the
// core's run object plans the run and the core decides the epoch SQL; one aggregate query
// per epoch over the prepared temp table), times each epoch query from this
// client, and interleaves the algorithms epoch by epoch so that they share
// the machine's load. Results are medians over --repeat runs. Strongly
// convex (epsilon, delta)-DP setting of the paper's figures: logistic loss,
// lambda = 1e-4 (R = 1/lambda), epsilon = 1, delta = 1/n^2.
//
//   overhead  per-epoch time at each --batch-sizes, ratio to noiseless
//             -> overhead.csv
//   epochs    cumulative time of epochs 1..--epochs at --batch-size
//             -> epochs.csv (Figure 5 a-c)
//   batch     per-epoch time at each --batch-sizes -> batch.csv (Figure 5 d-f)
//   scale     per-epoch time at --batch-size for every table size in
//             --scale-rows -> scale.csv (Figure 2); the temp table's size
//             and whether it fits in temp_buffers (--temp-buffers) are recorded
//
// Tables are synthesized (Forest-Covertype-like: --dim 54 features in
// [-1, 1] / sqrt(dim / 3), so E||x||^2 = 1, rows clipped to norm 1 by the
// training; label from a fixed hyperplane), named bench_runtime_<rows>_<dim>,
// created once and reused.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_ratio.h"
#include "core/algorithms/algorithm.h"
#include "core/error.h"
#include "core/engine/epoch_run.h"
#include "core/engine/pass.h"
#include "pg_connection.h"
#include "synthetic_table.h"

using dptrain::client::Param;
using dptrain::client::PgConnection;
using dptrain::client::PgResult;

namespace {

const std::vector<std::string> kAlgorithms = {"none", "bolton", "scs13", "bst14"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string table_for(PgConnection& c, long rows, int dim) {
  return dptrain::bench::ensure_synthetic_table(c, "bench_runtime_" + std::to_string(rows) + "_" + std::to_string(dim),
                                                rows, dim);
}

struct Setting {
  long rows = 0;
  int dim = 0;
  std::int64_t batch = 10;
  int epochs = 1;
  int repeat = 3;
  std::vector<std::string> algorithms;
};

struct Prepared {
  std::string shuffled;
  dptrain::TrainingConfig facts;  // rows, dim, classes
  double temp_mb = 0;
  bool fits_in_temp_buffers = false;
};

dptrain::TrainingConfig config_for(const std::string& algorithm, const Setting& s, const Prepared& p) {
  dptrain::TrainingConfig c = p.facts;
  c.algorithm = algorithm;
  c.epochs = s.epochs;
  c.batch_size = s.batch;
  c.lambda = 1e-4;
  if (algorithm != "none") {
    c.epsilon = 1.0;
    c.delta = 1.0 / (static_cast<double>(p.facts.rows) * p.facts.rows);
  }
  return c;
}

// Which of the requested algorithms this build can plan (bolt-on may not be
// merged yet): the others are skipped with a note.
std::vector<std::string> available(const std::vector<std::string>& wanted) {
  std::vector<std::string> out;
  for (const auto& a : wanted) {
    try {
      dptrain::make_algorithm(a);
      out.push_back(a);
    } catch (const dptrain::Error& e) {
      std::cerr << "note: skipping " << a << ": " << e.what() << "\n";
    }
  }
  return out;
}

Prepared prepare(PgConnection& c, const std::string& table) {
  Prepared p;
  PgResult r = c.exec(
      "SELECT shuffled, rows, dim, classes FROM dptrain.training_prepare($1::regclass, 'y', 'x', seed => 1)", {table});
  p.shuffled = r.get(0, 0);
  p.facts.rows = std::stoll(r.get(0, 1));
  p.facts.dim = std::stoi(r.get(0, 2));
  p.facts.classes = {"false", "true"};
  PgResult sz = c.exec(
      "SELECT pg_relation_size($1::regclass) / 1048576.0, pg_relation_size($1::regclass) <= "
      "pg_size_bytes(current_setting('temp_buffers'))",
      {p.shuffled});
  p.temp_mb = std::stod(sz.get(0, 0));
  p.fits_in_temp_buffers = sz.get(0, 1) == "t";
  return p;
}

// times[algorithm][epoch] = median seconds over the repeats.
std::map<std::string, std::vector<double>> measure(PgConnection& c, const std::string& table, const Setting& s,
                                                   Prepared* info) {
  std::map<std::string, std::vector<std::vector<double>>> samples;  // alg -> epoch -> repeats
  for (const auto& a : s.algorithms) samples[a].assign(static_cast<std::size_t>(s.epochs), {});
  for (int r = 0; r < s.repeat; ++r) {
    c.exec("BEGIN");
    c.exec("SET LOCAL jit = off");  // as dp_train and dptrain train
    const Prepared p = prepare(c, table);
    if (info) *info = p;
    std::vector<std::unique_ptr<dptrain::EpochRun>> trainers;
    for (const auto& a : s.algorithms) trainers.push_back(std::make_unique<dptrain::EpochRun>(config_for(a, s, p)));
    c.exec("SELECT count(*) FROM " + p.shuffled);  // warm the buffers
    for (int e = 0; e < s.epochs; ++e) {
      for (std::size_t k = 0; k < trainers.size(); ++k) {
        // Rotate the order per epoch and repeat: no algorithm always runs first.
        const std::size_t i = (k + static_cast<std::size_t>(e + r)) % trainers.size();
        const std::optional<dptrain::Pass> pass = trainers[i]->next();  // an epoch (no reshuffle here)
        const std::string literal = dptrain::client::to_array_literal(pass->input.data(), pass->input.size());
        const std::string sql = dptrain::pass_sql(*pass, p.shuffled);
        const auto t0 = std::chrono::steady_clock::now();
        PgResult out = c.exec(sql, {literal});
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::vector<double> state = dptrain::client::parse_float_array(out.get(0, 0));
        trainers[i]->accept(state.data(), state.size());
        samples[s.algorithms[i]][static_cast<std::size_t>(e)].push_back(secs);
      }
    }
    c.exec("COMMIT");
  }
  std::map<std::string, std::vector<double>> med;
  for (auto& [a, per_epoch] : samples)
    for (auto& v : per_epoch) med[a].push_back(median(v));
  return med;
}

double per_epoch(const std::vector<double>& v) { return median(v); }

std::ofstream open_csv(const std::string& dir, const std::string& name) {
  std::ofstream f(dir + "/" + name);
  if (!f) throw std::runtime_error("cannot write " + dir + "/" + name);
  f << std::setprecision(6);
  return f;
}

std::string header(const std::vector<std::string>& algs) {
  std::string h;
  for (const auto& a : algs) h += "," + a;
  return h;
}

// Issue 18, item 5: an epoch of BST14 <= 1.5x a noiseless one at b = 1 and 10, of SCS13 <= 1.2x at b = 1.
void summary_lines(std::ostringstream& out, const Setting& s, std::int64_t b,
                   const std::map<std::string, std::vector<double>>& t, double noiseless) {
  for (const std::string a : {"bst14", "scs13"}) {
    if (!t.count(a)) continue;
    std::string target;
    if (a == "bst14" && (b == 1 || b == 10)) target = "<= 1.5";
    if (a == "scs13" && b == 1) target = "<= 1.2";
    std::ostringstream what, base;
    what << s.rows << "x" << s.dim << ": " << a << " epoch / noiseless epoch, b = " << b;
    base << "noiseless " << std::fixed << std::setprecision(3) << noiseless << " s per epoch (median of " << s.repeat
         << " x " << s.epochs << ")";
    out << dptrain::bench::ratio_line("5", "bench/runtime.sh", what.str(), per_epoch(t.at(a)) / noiseless, target,
                                      base.str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dptrain runtime study (Bolt-on Figures 2 and 5)"};
  std::string db, experiment = "overhead", out = "bench/out/runtime";
  Setting s;
  s.rows = 500000;
  s.dim = 54;
  std::vector<std::int64_t> batches = {1, 10, 50, 500};
  std::vector<long> scale_rows = {100000, 200000, 400000, 800000};
  std::vector<std::string> algorithms = kAlgorithms;
  std::string temp_buffers;
  app.add_option("--db", db, "libpq connection string");
  app.add_option("--temp-buffers", temp_buffers,
                 "SET temp_buffers for this session (the prepared training tables are temp tables)");
  app.add_option("--experiment", experiment, "overhead | epochs | batch | scale")->capture_default_str();
  app.add_option("--rows", s.rows, "table size (overhead, epochs, batch)")->capture_default_str();
  app.add_option("--dim", s.dim)->capture_default_str();
  app.add_option("--epochs", s.epochs, "epochs per run")->capture_default_str();
  app.add_option("--batch-size", s.batch, "batch size (epochs, scale)")->capture_default_str();
  app.add_option("--batch-sizes", batches, "batch sizes (overhead, batch)")->delimiter(',');
  app.add_option("--scale-rows", scale_rows, "table sizes (scale)")->delimiter(',');
  app.add_option("--repeat", s.repeat, "runs per measurement (median)")->capture_default_str();
  app.add_option("--algorithms", algorithms, "subset of none,bolton,scs13,bst14")->delimiter(',');
  app.add_option("--out", out, "directory for the CSV files")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    s.algorithms = available(algorithms);
    if (s.algorithms.empty() || s.algorithms.front() != "none")
      throw std::runtime_error("the noiseless baseline 'none' must be the first algorithm");
    PgConnection c(db);
    c.on_notice = [](const std::string&, const std::string&) {};
    // Before any temp table is touched in this session (PostgreSQL refuses later).
    if (!temp_buffers.empty()) c.exec("SET temp_buffers = " + c.quote_literal(temp_buffers));
    c.exec("CREATE EXTENSION IF NOT EXISTS dptrain");
    const std::string algs = header(s.algorithms);

    if (experiment == "overhead" || experiment == "batch") {
      const std::string table = table_for(c, s.rows, s.dim);
      std::ofstream f = open_csv(out, experiment + ".csv");
      f << "batch_size" << algs;  // per-epoch seconds
      if (experiment == "overhead")
        for (const auto& a : s.algorithms) f << "," << a << "_ratio";
      f << "\n";
      std::cout << "per-epoch seconds (median of " << s.repeat << " runs x " << s.epochs << " epochs), " << s.rows
                << " rows x " << s.dim << "\n";
      std::ostringstream ratios;  // make bench's summary lines (issue 18, item 5), after the table
      for (std::int64_t b : batches) {
        Setting sb = s;
        sb.batch = b;
        const auto t = measure(c, table, sb, nullptr);
        const double base = per_epoch(t.at("none"));
        f << b;
        std::cout << "b = " << std::setw(4) << b << ":";
        for (const auto& a : s.algorithms) {
          f << "," << per_epoch(t.at(a));
          std::cout << "  " << a << " " << std::fixed << std::setprecision(3) << per_epoch(t.at(a)) << " s";
        }
        if (experiment == "overhead") {
          for (const auto& a : s.algorithms) f << "," << per_epoch(t.at(a)) / base;
          std::cout << "   ratio vs noiseless:";
          for (const auto& a : s.algorithms)
            if (a != "none") std::cout << " " << a << " " << std::setprecision(2) << per_epoch(t.at(a)) / base << "x";
          summary_lines(ratios, s, b, t, base);
        }
        std::cout << std::defaultfloat << "\n";
        f << "\n";
      }
      std::cout << ratios.str() << std::flush;
    } else if (experiment == "epochs") {
      const std::string table = table_for(c, s.rows, s.dim);
      const auto t = measure(c, table, s, nullptr);
      std::ofstream f = open_csv(out, "epochs.csv");
      f << "epochs" << algs << "\n";
      std::map<std::string, double> total;
      for (int e = 0; e < s.epochs; ++e) {
        f << e + 1;
        for (const auto& a : s.algorithms) f << "," << (total[a] += t.at(a)[static_cast<std::size_t>(e)]);
        f << "\n";
      }
      std::cout << "cumulative seconds after " << s.epochs << " epochs at b = " << s.batch << ":";
      for (const auto& a : s.algorithms) std::cout << "  " << a << " " << total[a];
      std::cout << "\n";
    } else if (experiment == "scale") {
      std::ofstream f = open_csv(out, "scale.csv");
      f << "rows,temp_table_mb,fits_in_temp_buffers" << algs << "\n";
      for (long n : scale_rows) {
        Setting sn = s;
        sn.rows = n;
        const std::string table = table_for(c, n, s.dim);
        Prepared info;
        const auto t = measure(c, table, sn, &info);
        f << n << "," << info.temp_mb << "," << (info.fits_in_temp_buffers ? 1 : 0);
        std::cout << n << " rows (" << std::fixed << std::setprecision(0) << info.temp_mb << " MB, "
                  << (info.fits_in_temp_buffers ? "in temp_buffers" : "larger than temp_buffers") << "):"
                  << std::setprecision(3);
        for (const auto& a : s.algorithms) {
          f << "," << per_epoch(t.at(a));
          std::cout << "  " << a << " " << per_epoch(t.at(a)) << " s";
        }
        std::cout << std::defaultfloat << "\n";
        f << "\n";
      }
    } else {
      throw std::runtime_error("unknown experiment " + experiment);
    }
  } catch (const std::exception& e) {
    std::cerr << "runtime: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
