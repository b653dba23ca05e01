// dptrain tune: private hyperparameter tuning over a grid, by Bolt-on
// Algorithm 3 over (lambda, epochs, batch size) (--method holdout) or by
// Liu-Talwar random stopping over any parameters of any private algorithm
// (--method liu_talwar, inside the server); see remote_tuning.h and
// docs/tuning.md. Prints the chosen parameters and the total privacy.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "charge_report.h"
#include "commands.h"
#include "extension.h"
#include "json_flags.h"
#include "model_name_flag.h"
#include "core/algorithms/algorithm.h"
#include "core/joined.h"
#include "core/tuning/private_tuning.h"
#include "core/error.h"
#include "remote_tuning.h"
#include "run_result.h"
#include "run_options.h"

namespace dptrain::cli {
namespace {

std::string show(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// What print_run_result says if the result cannot be written (run_result.h).
std::string stored(std::int64_t id, const Model& m) {
  return "model " + std::to_string(id) + " (" + m.algorithm + ") was stored; total epsilon = " +
         show(m.epsilon.value_or(0)) + ", delta = " + show(m.delta.value_or(0));
}

struct TuneOptions : RunOptions {
  tuning::Grid grid;
  std::string method;      // holdout | liu_talwar; empty: tuning::random_stopping_by_default
  std::string grid_json;   // --grid (liu_talwar)
  double gamma = std::nan("");
};

bool liu_talwar(const TuneOptions& o) {
  if (!o.method.empty()) {
    if (o.method != "holdout" && o.method != "liu_talwar")
      throw Error(ErrorKind::InvalidParameter, "unknown tuning method \"" + o.method + "\"", {},
                  "Use --method holdout (Bolt-on Algorithm 3) or liu_talwar (random stopping).");
    return o.method == "liu_talwar";
  }
  return tuning::random_stopping_by_default(o.config.algorithm);
}

// Liu-Talwar random stopping, inside the server (dp_tune).
void run_liu_talwar(TuneOptions& o) {
  const TrainingConfig& c = o.config;
  if (o.controller)
    throw Error(ErrorKind::NotImplemented, "--method liu_talwar runs inside the server only", {},
                "Drop --controller: dp_tune charges the total before any candidate runs.");
  if (!o.grid_json.empty() && (o.grid.lambdas_given || o.grid.epochs_given || o.grid.batch_sizes_given))
    throw Error(ErrorKind::InvalidParameter, "--grid and --lambdas, --epochs, --batch-sizes exclude each other", {},
                "Put them into --grid, e.g. --grid '{\"lambda\": [0.001], \"epochs\": [1, 5]}'.");
  client::PgConnection conn(o.db);
  client::api_schema(conn);  // a missing or too old extension is named first
  o.target.table = conn.resolve_relation(o.target.table);
  const client::ChargeWatch watch(conn, o.db, o.target.table);  // a run that fails after its charge says so
  const client::LiuTalwarOutcome r = client::with_charge_report(
      watch, [&] { return client::tune_liu_talwar_in_server(conn, o.target, c, o.grid, o.grid_json, o.gamma); });
  const Model& m = r.model;
  if (o.json) {
    nlohmann::json j = stored_model_json(r.model_id, m, r.seconds, true);
    j["method"] = "liu_talwar";
    j["chosen"] = r.chosen;
    j["grid_points"] = r.grid_points;
    client::print_run_result(j.dump() + "\n", stored(r.model_id, m));
  } else {
    std::ostringstream out;
    out << "model " << r.model_id << (m.name.empty() ? "" : " (" + m.name + ")") << ": " << m.algorithm
              << " tuned by Liu-Talwar random stopping over " << r.grid_points << " grid points; chosen "
              << r.chosen.dump() << "; total epsilon = " << show(m.epsilon.value_or(0))
              << ", delta = " << show(m.delta.value_or(0)) << (m.seeded ? " [seeded: NOT private]" : "") << ", "
              << r.seconds << " s\n";
    client::print_run_result(out.str(), stored(r.model_id, m));
  }
}

void run(TuneOptions& o, const ColumnOptions& k, const CLI::App& cmd) {
  client::keep_running_if_output_closes();  // run_result.h
  apply_run_options(o, cmd);
  apply_column_options(k, o, cmd, "dp_tune");
  o.grid.batch_sizes_given = cmd.count("--batch-sizes") > 0;  // without: the default rule (fit_default_batch)
  o.grid.lambdas_given = cmd.count("--lambdas") > 0;
  o.grid.epochs_given = cmd.count("--epochs") > 0;
  if (liu_talwar(o)) return run_liu_talwar(o);
  if (!o.grid_json.empty() || !std::isnan(o.gamma))
    throw Error(ErrorKind::InvalidParameter, "--grid and --gamma apply to --method liu_talwar only", {},
                "Use --lambdas, --epochs and --batch-sizes for the holdout method.");
  const TrainingConfig& c = o.config;
  client::PgConnection conn(o.db);
  client::api_schema(conn);  // a missing or too old extension is named first
  o.target.table = conn.resolve_relation(o.target.table);  // under the user's search_path
  // A Citus hash-distributed table is tuned in place, inside the server
  // (docs/tuning.md section 5): the controller would copy every row.
  const bool distributed = client::is_distributed_table(conn, o.target.table);
  if (distributed && o.controller)
    throw client::PgError("controller mode cannot tune on the distributed table " + o.target.table, "0A000", {},
                          "Drop --controller: dp_tune tunes it in place, its parts read on the shards.");
  if (distributed && !o.json)
    std::cerr << "NOTICE:  " << o.target.table << " is a distributed table: tuning in place inside the server "
              << "(dp_tune)\n";
  const bool server = distributed || use_server(
      o, [&] { return client::tuning_controller_missing_privileges(conn, o.target, c); }, "tuning", "dp_tune");
  const client::ChargeWatch watch(conn, o.db, o.target.table);  // a run that fails after its charge says so
  const client::TuningOutcome r = client::with_charge_report(watch, [&] {
    return server ? client::tune_in_server(conn, o.target, c, o.grid)
                  : client::tune_with_controller(conn, o.target, c, o.grid, !o.json);
  });
  const Model& m = r.model;
  if (o.json) {
    nlohmann::json chosen = r.chosen.to_json();
    chosen["index"] = m.details["tuning"]["chosen"]["index"];
    nlohmann::json j = stored_model_json(r.model_id, m, r.seconds, server);
    j["chosen"] = chosen;
    j["candidates"] = r.candidates;
    client::print_run_result(j.dump() + "\n", stored(r.model_id, m));
  } else {
    std::ostringstream out;
    out << "model " << r.model_id << (m.name.empty() ? "" : " (" + m.name + ")") << ": " << m.algorithm
              << " tuned over " << r.candidates << " candidates; chosen lambda = " << show(r.chosen.lambda)
              << ", epochs = " << r.chosen.epochs << ", batch_size = " << r.chosen.batch_size
              << "; total epsilon = " << show(m.epsilon.value_or(0))
              << (m.delta && *m.delta > 0 ? ", delta = " + show(*m.delta) : std::string())
              << (m.seeded ? " [seeded: NOT private]" : "") << ", " << r.seconds << " s\n";
    client::print_run_result(out.str(), stored(r.model_id, m));
  }
}

}  // namespace

void register_tune(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  auto k = std::make_shared<ColumnOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "privately choose hyperparameters from a grid and store the chosen model (Bolt-on Alg. 3, or Liu-Talwar "
      "random stopping with --method liu_talwar)");
  add_run_options(cmd, *o, "tuning", "dp_tune");
  add_column_options(cmd, *k);
  // Every algorithm but the two non-private ones (none, optimum), which dp_tune refuses.
  std::vector<std::string> private_algorithms = known_algorithms();
  private_algorithms.erase(
      std::remove_if(private_algorithms.begin(), private_algorithms.end(), non_private_algorithm),
      private_algorithms.end());
  cmd->add_option("--algorithm", o->config.algorithm, "a private algorithm: " + joined(private_algorithms, " | "))
      ->capture_default_str();
  cmd->add_option("--epsilon", o->epsilon, "total privacy budget epsilon")->required();
  cmd->add_option("--delta", o->delta, "total delta (0 = pure epsilon-DP)");
  cmd->add_option("--lambdas", o->grid.lambdas, "candidate L2 regularizations")->delimiter(',')->capture_default_str();
  cmd->add_option("--epochs", o->grid.epochs, "candidate numbers of epochs")->delimiter(',')->capture_default_str();
  cmd->add_option("--batch-sizes", o->grid.batch_sizes,
                  "candidate batch sizes (default: 50, capped at a tuning part's rows, docs/tuning.md)")
      ->delimiter(',');
  cmd->add_option("--method", o->method,
                  "holdout (Bolt-on Alg. 3) | liu_talwar (random stopping, any algorithm; default for the DP-SGD "
                  "family and dpagd)");
  cmd->add_option("--grid", o->grid_json,
                  "liu_talwar: JSON object of candidate lists, e.g. '{\"learning_rate\": [0.1, 1], \"clip_norm\": [0.5, 1]}' "
                  "(default, or '': the lists of --lambdas, --epochs, --batch-sizes)")
      ->check(client::json_object_flag(/*empty_means_default=*/true));
  cmd->add_option("--gamma", o->gamma, "liu_talwar: stopping probability (default 1 / grid points)");
  cmd->add_option("--name", o->config.name, "name of the chosen model")->check(client::model_name_flag());
  cmd->callback([o, k, cmd] { run(*o, *k, *cmd); });
}

}  // namespace dptrain::cli
