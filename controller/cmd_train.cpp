// dptrain train: train a model on a table (see remote_training.h).
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <nlohmann/json.hpp>

#include "charge_report.h"
#include "commands.h"
#include "extension.h"
#include "model_name_flag.h"
#include "model_reference.h"
#include "core/training/defaults.h"
#include "core/algorithms/algorithm.h"
#include "core/joined.h"
#include "core/training/intercept.h"
#include "remote_training.h"
#include "run_result.h"
#include "run_options.h"

namespace dptrain::cli {
namespace {

void run(RunOptions& o, const ColumnOptions& k, const CLI::App& cmd) {
  client::keep_running_if_output_closes();  // run_result.h
  apply_run_options(o, cmd);
  apply_column_options(k, o, cmd, "dp_train");
  // Left out: chosen from public inputs (core/training/defaults.h), as in dp_train.
  const defaults::Unset unset{cmd.count("--algorithm") == 0, cmd.count("--epochs") == 0,
                              cmd.count("--batch-size") == 0, cmd.count("--lambda") == 0};
  if (unset.algorithm) {
    o.config.algorithm = defaults::algorithm(o.config);
    o.config.intercept = intercept_of(o, o.config.algorithm);
  }
  const TrainingConfig& c = o.config;
  client::PgConnection conn(o.db);
  client::api_schema(conn);  // a missing or too old extension is named first
  o.target.table = conn.resolve_relation(o.target.table);  // under the user's search_path
  const bool progress = !o.json;
  // A Citus hash-distributed table trains in place, inside the server
  // (docs/distributed.md section 9): the controller would copy every row.
  const bool distributed = client::is_distributed_table(conn, o.target.table);
  if (distributed && o.controller)
    throw client::PgError("controller mode cannot train on the distributed table " + o.target.table, "0A000", {},
                          "Drop --controller: dp_train trains it in place, shard by shard.");
  if (distributed && !o.json)
    std::cerr << "NOTICE:  " << o.target.table << " is a distributed table: training in place inside the server "
              << "(dp_train)\n";
  const bool server = distributed || use_server(
      o, [&] { return client::controller_missing_privileges(conn, o.target, c); }, "training", "dp_train");
  // A run that fails after its charge says so (charge_report.h).
  const client::ChargeWatch watch(conn, o.db, o.target.table);
  const client::TrainingOutcome r = client::with_charge_report(watch, [&] {
    return server ? client::train_in_server(conn, o.target, c, unset)
                  : client::train_with_controller(conn, o.target, c, progress, unset);
  });
  const Model& m = r.model;
  const std::string summary =
      "model " + std::to_string(r.model_id) + (m.name.empty() ? "" : " (" + m.name + ")") + ": " + m.algorithm +
      ", " + loss_name(m.loss) + ", " + std::to_string(m.classes.size()) + " classes, " +
      (m.epsilon ? "epsilon = " + format_privacy(*m.epsilon) +
                       (m.delta && *m.delta > 0 ? ", delta = " + format_privacy(*m.delta) : "")
                 : std::string("not private")) +
      (m.seeded ? " [seeded: NOT private]" : "");
  if (o.json) {
    nlohmann::json j = stored_model_json(r.model_id, m, r.seconds, server);
    j["loss"] = loss_name(m.loss);
    j["epochs"] = r.epochs;
    j["classes"] = m.classes;
    client::print_run_result(j.dump() + "\n", summary + " (stored)");
  } else {
    std::ostringstream line;
    line << summary << ", " << r.seconds << " s\n";
    client::print_run_result(line.str(), summary + " (stored)");
  }
}

// "L2 regularization (default 0; dpagd: 0.001)", from each algorithm's default_lambda().
std::string lambda_help() {
  std::string h = "L2 regularization (default 0";
  for (const std::string& name : algorithms_that([](const Algorithm& a) { return a.default_lambda() != 0; })) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", make_algorithm(name)->default_lambda());
    h += "; " + name + ": " + value;
  }
  return h + ")";
}

}  // namespace

void register_train(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto k = std::make_shared<ColumnOptions>();
  CLI::App* cmd = app.add_subcommand("train", "train a model on a table (one aggregate query per epoch)");
  add_run_options(cmd, *o, "training", "dp_train");
  add_column_options(cmd, *k);
  cmd->add_option("--algorithm", o->config.algorithm,
                  joined(known_algorithms(), " | ") +
                      " (default: dpsgd with --delta, else bolton, with defaults from n, d and epsilon: "
                      "docs/defaults.md)");
  cmd->add_option("--epsilon", o->epsilon, "privacy budget epsilon");
  cmd->add_option("--delta", o->delta, "privacy parameter delta (0 = pure epsilon-DP)");
  cmd->add_option("--epochs", o->config.epochs, "passes over the data (default: 5 without --algorithm, else 10)");
  cmd->add_option("--batch-size", o->config.batch_size, "mini-batch size b (default: docs/defaults.md, else 50)");
  cmd->add_option("--lambda", o->config.lambda, lambda_help());
  cmd->add_option("--name", o->config.name, "model name")->check(client::model_name_flag());
  cmd->callback([o, k, cmd] { run(*o, *k, *cmd); });
}

}  // namespace dptrain::cli
