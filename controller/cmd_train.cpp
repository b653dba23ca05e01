// dptrain train: train a model on a table (see remote_training.h).
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "remote_training.h"

namespace dptrain::cli {
namespace {

struct TrainOptions {
  std::string db;
  client::TrainingTarget target;
  std::vector<std::string> classes;
  TrainingConfig config;
  double epsilon = 0, delta = 0, learning_rate = 0, radius = 0;
  std::int64_t seed = 0;
  std::string schedule, options = "{}";
  bool server = false, controller = false, json = false;
};

void run(TrainOptions& o, const CLI::App& cmd) {
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
  const bool progress = !o.json;
  // Controller mode needs privileges of a role trusted with the raw data;
  // anyone else trains inside the server, where dp_train checks the privacy
  // budget of a role that may not read the table.
  bool server = o.server;
  if (!server) {
    const std::string missing = client::controller_missing_privileges(conn, o.target, c);
    if (!missing.empty()) {
      if (o.controller)
        throw client::PgError("controller mode needs " + missing + ", which this role lacks", "42501", {},
                              "Train inside the server instead (--server, i.e. dp_train): it works without "
                              "read access when the table's owner granted a privacy budget.");
      std::cerr << "NOTICE:  controller mode needs " << missing
                << ", which this role lacks: training inside the server (dp_train) instead\n";
      server = true;
    }
  }
  const client::TrainingOutcome r = server ? client::train_in_server(conn, o.target, c)
                                           : client::train_with_controller(conn, o.target, c, progress);
  const Model& m = r.model;
  if (o.json) {
    nlohmann::json j = {{"model_id", r.model_id},
                        {"name", m.name},
                        {"algorithm", m.algorithm},
                        {"loss", loss_name(m.loss)},
                        {"epsilon", m.epsilon ? nlohmann::json(*m.epsilon) : nlohmann::json()},
                        {"delta", m.delta ? nlohmann::json(*m.delta) : nlohmann::json()},
                        {"seconds", r.seconds},
                        {"epochs", r.epochs},
                        {"classes", m.classes},
                        {"seeded", m.seeded},
                        {"mode", server ? "server" : "controller"},
                        {"details", m.details}};
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "model " << r.model_id << (m.name.empty() ? "" : " (" + m.name + ")") << ": " << m.algorithm
              << ", " << loss_name(m.loss) << ", " << m.classes.size() << " classes, "
              << (m.epsilon ? "epsilon = " + std::to_string(*m.epsilon) +
                                  (m.delta && *m.delta > 0 ? ", delta = " + std::to_string(*m.delta) : "")
                            : std::string("not private"))
              << (m.seeded ? " [seeded: NOT private]" : "") << ", " << r.seconds << " s\n";
  }
}

}  // namespace

void register_train(CLI::App& app) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand("train", "train a model on a table (one aggregate query per epoch)");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--table", o->target.table, "table to train on (schema-qualified if needed)")->required();
  cmd->add_option("--label", o->target.label, "label column")->capture_default_str();
  cmd->add_option("--features", o->target.features, "float8[] feature column")->capture_default_str();
  cmd->add_option("--classes", o->classes, "declared classes (binary: negative then positive)")->delimiter(',');
  cmd->add_option("--algorithm", o->config.algorithm, "none | bolton | ...")->capture_default_str();
  cmd->add_option("--loss", o->config.loss, "logistic | huber_svm")->capture_default_str();
  cmd->add_option("--epsilon", o->epsilon, "privacy budget epsilon");
  cmd->add_option("--delta", o->delta, "privacy parameter delta (0 = pure epsilon-DP)");
  cmd->add_option("--epochs", o->config.epochs, "passes over the data")->capture_default_str();
  cmd->add_option("--batch-size", o->config.batch_size, "mini-batch size b")->capture_default_str();
  cmd->add_option("--lambda", o->config.lambda, "L2 regularization")->capture_default_str();
  cmd->add_option("--learning-rate", o->learning_rate, "constant step size");
  cmd->add_option("--schedule", o->schedule, "constant | strongly_convex | decreasing | sqrt | inverse_sqrt");
  cmd->add_option("--huber-h", o->config.huber_h, "Huber SVM smoothing h")->capture_default_str();
  cmd->add_option("--radius", o->radius, "projection radius R");
  cmd->add_flag("--averaging", o->config.averaging, "release the average of the iterates");
  cmd->add_flag("--reshuffle", o->config.reshuffle, "fresh random permutation every epoch");
  cmd->add_option("--seed", o->seed, "TESTS ONLY: reproducible shuffle and noise (the model is not private)");
  cmd->add_option("--name", o->config.name, "model name");
  cmd->add_option("--options", o->options, "algorithm-specific options (JSON object)");
  auto* server = cmd->add_flag("--server", o->server, "run the whole training inside the server (dp_train)");
  cmd->add_flag("--controller", o->controller,
                "drive the epochs from here, or fail (default: here if this role may, else in the server)")
      ->excludes(server);
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace dptrain::cli
