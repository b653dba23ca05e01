// bench/epoch_vs_scan: how much does one training epoch cost compared with a
// plain aggregate scan of the same float8[] column, in the same run?
//
//   build/bench/epoch_vs_scan --db "..." [--rows 500000] [--dim 54] [--repeat 5]
//
// Creates (or reuses) a synthetic table of `rows` x `dim` features
// (bench/lib/synthetic_table.h), shuffles it into a temp table exactly like a training run does
// (dptrain.training_prepare), and times, alternating, over that temp table:
//   scan:   SELECT sum(cardinality(x)) FROM shuffled   (detoasts every array)
//   epoch:  SELECT dptrain.sgd_epoch(x, y, <state>) FROM shuffled
// for each batch size. Prints the median times and the ratios epoch / scan.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include "bench_ratio.h"
#include "core/sgd/epoch_state.h"
#include "pg_connection.h"
#include "synthetic_table.h"

using dptrain::client::PgConnection;

namespace {

double time_query(PgConnection& c, const std::string& sql, const std::vector<dptrain::client::Param>& params) {
  const auto t0 = std::chrono::steady_clock::now();
  c.exec(sql, params);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"epoch vs plain scan of the same float8[] column"};
  std::string db, table = "bench_epoch_vs_scan";
  long rows = 500000;
  int dim = 54, repeat = 5;
  std::vector<int> batches = {1, 10, 50};
  app.add_option("--db", db, "libpq connection string");
  app.add_option("--rows", rows)->capture_default_str();
  app.add_option("--dim", dim)->capture_default_str();
  app.add_option("--repeat", repeat)->capture_default_str();
  app.add_option("--batch-sizes", batches)->delimiter(',');
  app.add_option("--table", table)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  PgConnection c(db);
  c.on_notice = [](const std::string&, const std::string&) {};
  c.exec("CREATE EXTENSION IF NOT EXISTS dptrain");
  const std::string qtable = dptrain::bench::ensure_synthetic_table(c, table, rows, dim);
  const std::string size = c.exec("SELECT pg_size_pretty(pg_total_relation_size($1::regclass))", {qtable}).get(0, 0);

  c.exec("BEGIN");
  c.exec("SET LOCAL jit = off");  // as in dp_train: both queries without JIT
  dptrain::client::PgResult prep =
      c.exec("SELECT shuffled FROM dptrain.training_prepare($1::regclass, 'y', 'x', seed => 1)", {qtable});
  const std::string shuffled = prep.get(0, 0);
  const std::string scan_sql = "SELECT sum(cardinality(x)) FROM " + shuffled;
  const std::string epoch_sql = "SELECT dptrain.sgd_epoch(x, y, $1::float8[]) IS NOT NULL FROM " + shuffled;

  std::cout << "table: " << rows << " rows x " << dim << " features (" << size << "), shuffled into a temp table\n";
  std::cout << "batch_size,scan_s,epoch_s,ratio\n";
  struct Measured {
    int batch;
    double scan_s, ratio;
  };
  std::vector<Measured> measured;  // for make bench's summary lines, after the CSV (issue 18, item 3)
  time_query(c, scan_sql, {});  // warm the buffers
  for (int b : batches) {
    dptrain::epoch_state::EpochConfig cfg;
    cfg.dim = dim;
    cfg.batch_size = b;
    cfg.schedule.eta = 1.0;
    const std::vector<double> init = dptrain::epoch_state::make_state(cfg, nullptr, 0);
    const std::string init_text = dptrain::client::to_array_literal(init.data(), init.size());
    std::vector<double> scans, epochs;
    for (int r = 0; r < repeat; ++r) {
      scans.push_back(time_query(c, scan_sql, {}));
      epochs.push_back(time_query(c, epoch_sql, {init_text}));
    }
    const double s = median(scans), e = median(epochs);
    std::cout << b << "," << s << "," << e << "," << e / s << "\n";
    measured.push_back({b, s, e / s});
  }
  for (const Measured& m : measured) {
    std::ostringstream what, base;
    what << rows << "x" << dim << ": noiseless epoch (b = " << m.batch
         << ") / scan of the shuffled copy in temp_buffers";
    base << "scan " << std::fixed << std::setprecision(3) << m.scan_s << " s (median of " << repeat << ")";
    dptrain::bench::emit_ratio("3", "bench/epoch_vs_scan.sh", what.str(), m.ratio, "<= 1.2", base.str());
  }
  c.exec("COMMIT");
  return 0;
}
