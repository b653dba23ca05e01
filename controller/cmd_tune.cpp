// dptrain tune: private hyperparameter tuning over a grid of (lambda,
// epochs, batch size) (Bolt-on Algorithm 3; see remote_tuning.h and
// docs/tuning.md). Prints the chosen parameters and the total privacy.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "remote_tuning.h"

namespace dptrain::cli {
namespace {

struct TuneOptions {
  std::string db;
  client::TrainingTarget target;
  std::vector<std::string> classes;
  TrainingConfig config;
  tuning::Grid grid;
  double epsilon = 0, delta = 0, learning_rate = 0, radius = 0;
  std::int64_t seed = 0;
  std::string schedule, options = "{}";
  bool server = false, controller = false, json = false;
};

std::string show(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

void run(TuneOptions& o, const CLI::App& cmd) {
  TrainingConfig& c = o.config;
  if (cmd.count("--epsilon")) c.epsilon = o.epsilon;
  if (cmd.count("--delta")) c.delta = o.delta;
  if (cmd.count("--learning-rate")) c.learning_rate = o.learning_rate;
  if (cmd.count("--radius")) c.radius = o.radius;
  if (cmd.count("--seed")) c.seed = o.seed;
  if (cmd.count("--schedule")) c.schedule = o.schedule;
  if (!o.classes.empty()) o.target.classes = o.classes;
  c.options = nlohmann::json::parse(o.options);

  client::PgConnection conn(o.db);
  // As `dptrain train`: the controller needs a role trusted with the raw
  // data; anyone else tunes inside the server (dp_tune checks the budget).
  bool server = o.server;
  if (!server) {
    const std::string missing = client::tuning_controller_missing_privileges(conn, o.target, c);
    if (!missing.empty()) {
      if (o.controller)
        throw client::PgError("controller mode needs " + missing + ", which this role lacks", "42501", {},
                              "Tune inside the server instead (--server, i.e. dp_tune): it works without read "
                              "access when the table's owner granted a privacy budget.");
      std::cerr << "NOTICE:  controller mode needs " << missing
                << ", which this role lacks: tuning inside the server (dp_tune) instead\n";
      server = true;
    }
  }
  const client::TuningOutcome r = server ? client::tune_in_server(conn, o.target, c, o.grid)
                                         : client::tune_with_controller(conn, o.target, c, o.grid, !o.json);
  const Model& m = r.model;
  if (o.json) {
    nlohmann::json chosen = r.chosen.to_json();
    chosen["index"] = m.details["tuning"]["chosen"]["index"];
    nlohmann::json j = {{"model_id", r.model_id},
                        {"name", m.name},
                        {"algorithm", m.algorithm},
                        {"epsilon", m.epsilon ? nlohmann::json(*m.epsilon) : nlohmann::json()},
                        {"delta", m.delta ? nlohmann::json(*m.delta) : nlohmann::json()},
                        {"chosen", chosen},
                        {"candidates", r.candidates},
                        {"seconds", r.seconds},
                        {"seeded", m.seeded},
                        {"mode", server ? "server" : "controller"},
                        {"details", m.details}};
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "model " << r.model_id << (m.name.empty() ? "" : " (" + m.name + ")") << ": " << m.algorithm
              << " tuned over " << r.candidates << " candidates; chosen lambda = " << show(r.chosen.lambda)
              << ", epochs = " << r.chosen.epochs << ", batch_size = " << r.chosen.batch_size
              << "; total epsilon = " << show(m.epsilon.value_or(0))
              << (m.delta && *m.delta > 0 ? ", delta = " + show(*m.delta) : std::string())
              << (m.seeded ? " [seeded: NOT private]" : "") << ", " << r.seconds << " s\n";
  }
}

}  // namespace

void register_tune(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "privately choose (lambda, epochs, batch size) from a grid and store the chosen model (Bolt-on Alg. 3)");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--table", o->target.table, "table to tune on (schema-qualified if needed)")->required();
  cmd->add_option("--label", o->target.label, "label column")->capture_default_str();
  cmd->add_option("--features", o->target.features, "float8[] feature column")->capture_default_str();
  cmd->add_option("--classes", o->classes, "declared classes (binary: negative then positive)")->delimiter(',');
  cmd->add_option("--algorithm", o->config.algorithm, "a private algorithm: bolton | ...")->capture_default_str();
  cmd->add_option("--loss", o->config.loss, "logistic | huber_svm")->capture_default_str();
  cmd->add_option("--epsilon", o->epsilon, "total privacy budget epsilon")->required();
  cmd->add_option("--delta", o->delta, "total delta (0 = pure epsilon-DP)");
  cmd->add_option("--lambdas", o->grid.lambdas, "candidate L2 regularizations")->delimiter(',')->capture_default_str();
  cmd->add_option("--epochs", o->grid.epochs, "candidate numbers of epochs")->delimiter(',')->capture_default_str();
  cmd->add_option("--batch-sizes", o->grid.batch_sizes, "candidate batch sizes")->delimiter(',')->capture_default_str();
  cmd->add_option("--learning-rate", o->learning_rate, "constant step size (all candidates)");
  cmd->add_option("--schedule", o->schedule, "step-size schedule (all candidates)");
  cmd->add_option("--huber-h", o->config.huber_h, "Huber SVM smoothing h")->capture_default_str();
  cmd->add_option("--radius", o->radius, "projection radius R");
  cmd->add_flag("--averaging", o->config.averaging, "release the average of the iterates");
  cmd->add_flag("--reshuffle", o->config.reshuffle, "fresh random permutation every epoch");
  cmd->add_option("--seed", o->seed, "TESTS ONLY: reproducible split, noise and choice (the model is not private)");
  cmd->add_option("--name", o->config.name, "name of the chosen model");
  cmd->add_option("--options", o->options, "algorithm-specific options (JSON object)");
  auto* server = cmd->add_flag("--server", o->server, "run the whole tuning inside the server (dp_tune)");
  cmd->add_flag("--controller", o->controller,
                "drive the candidates' epochs from here, or fail (default: here if this role may, else in the server)")
      ->excludes(server);
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace dptrain::cli
