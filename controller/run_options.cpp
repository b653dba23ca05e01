#include "run_options.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "core/algorithms/algorithm.h"
#include "core/joined.h"
#include "core/training/intercept.h"
#include "json_flags.h"

namespace dptrain::cli {

void add_run_options(CLI::App* cmd, RunOptions& o, const std::string& run, const std::string& server_function) {
  cmd->add_option("--db", o.db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--table", o.target.table, "table to train on (schema-qualified if needed)")->required();
  cmd->add_option("--label", o.target.label, "label column")->capture_default_str();
  cmd->add_option("--features", o.target.features, "float8[] feature column")->capture_default_str();
  cmd->add_option("--classes", o.classes, "declared classes (binary: negative then positive)")->delimiter(',');
  cmd->add_option("--loss", o.config.loss, "logistic | huber_svm")->capture_default_str();
  cmd->add_option("--learning-rate", o.learning_rate, "constant step size");
  cmd->add_option("--schedule", o.schedule, "constant | strongly_convex | decreasing | sqrt | inverse_sqrt");
  cmd->add_option("--huber-h", o.config.huber_h, "Huber SVM smoothing h")->capture_default_str();
  cmd->add_option("--radius", o.radius, "projection radius R");
  cmd->add_flag("--averaging", o.config.averaging, "release the average of the iterates");
  cmd->add_flag("--reshuffle", o.config.reshuffle, "fresh random permutation every epoch");
  auto* no_intercept = cmd->add_flag("--no-intercept", o.no_intercept,
                                     "no bias term (default: an intercept, except for " +
                                         dptrain::joined(dptrain::algorithms_that([](const dptrain::Algorithm& a) {
                                                           return !a.default_intercept();
                                                         }),
                                                         ", ") +
                                         ": docs/intercept.md)");
  cmd->add_flag("--intercept", o.intercept, "a bias term also where the algorithm's default has none (intercept => true)")
      ->excludes(no_intercept);
  cmd->add_option("--seed", o.seed, "TESTS ONLY: reproducible shuffle and noise (the model is not private)");
  cmd->add_option("--options", o.options, "algorithm-specific options (JSON object; every algorithm's keys: docs/options.md)")
      ->check(client::json_object_flag());
  auto* server = cmd->add_flag("--server", o.server, "run the whole " + run + " inside the server (" + server_function + ")");
  cmd->add_flag("--controller", o.controller,
                "drive the epochs from here, or fail (default: here if this role may, else in the server)")
      ->excludes(server);
  cmd->add_flag("--json", o.json, "print one JSON object");
}

// As dp_train's intercept => true | false | NULL (the algorithm's default): docs/intercept.md.
bool intercept_of(const RunOptions& o, const std::string& algorithm) {
  if (o.intercept) return true;
  return !o.no_intercept && intercept::default_on(algorithm);
}

void apply_run_options(RunOptions& o, const CLI::App& cmd) {
  TrainingConfig& c = o.config;
  if (cmd.count("--epsilon")) c.epsilon = o.epsilon;
  if (cmd.count("--delta")) c.delta = o.delta;
  if (cmd.count("--learning-rate")) c.learning_rate = o.learning_rate;
  if (cmd.count("--radius")) c.radius = o.radius;
  if (cmd.count("--seed")) c.seed = o.seed;
  if (cmd.count("--schedule")) c.schedule = o.schedule;
  if (!o.classes.empty()) o.target.classes = o.classes;
  c.intercept = intercept_of(o, c.algorithm);
  c.options = nlohmann::json::parse(o.options);
}

void add_column_options(CLI::App* cmd, ColumnOptions& k) {
  cmd->add_option("--columns", k.columns,
                  "ordinary columns to encode instead of --features (numbers need --bounds, text --categories; "
                  "runs inside the server: docs/encoding.md)")
      ->delimiter(',');
  cmd->add_option("--bounds", k.bounds, "public bounds of numeric --columns, JSON: '{\"age\": [17, 90]}'")
      ->check(client::json_object_flag());
  cmd->add_option("--categories", k.categories,
                  "declared categories of text --columns, JSON: '{\"sex\": [\"Female\", \"Male\"]}'")
      ->check(client::json_object_flag());
  cmd->add_option("--normalization", k.normalization, "l2 | clip (rows of encoded --columns)")->capture_default_str();
}

void apply_column_options(const ColumnOptions& k, RunOptions& o, const CLI::App& cmd,
                          const std::string& server_function) {
  if (k.columns.empty()) {
    for (const char* flag : {"--bounds", "--categories", "--normalization"})
      if (cmd.count(flag))
        throw client::PgError(std::string(flag) + " applies to --columns only", "22023", {},
                              "List the columns to encode: --columns age,sex,...");
    return;
  }
  if (cmd.count("--features"))
    throw client::PgError("--features and --columns exclude each other", "22023", {},
                          "--features names one float8[] column; --columns lists ordinary columns to encode.");
  if (o.controller)
    throw client::PgError("controller mode cannot encode columns", "0A000", {},
                          "Drop --controller: " + server_function + " encodes --columns inside the server.");
  o.target.columns = k.columns;
  o.target.bounds = k.bounds;
  o.target.categories = k.categories;
  o.target.normalization = k.normalization;
  o.server = true;
}

bool use_server(const RunOptions& o, const std::function<std::string()>& missing_privileges, const std::string& run,
                const std::string& server_function) {
  if (o.server) return true;
  // The controller sees the noiseless model: it needs a role the data owner
  // trusts with the raw data. Anyone else runs inside the server, which
  // checks the privacy budget of a role that may not read the table.
  const std::string missing = missing_privileges();
  if (missing.empty()) return false;
  if (o.controller)
    throw client::PgError("controller mode needs " + missing + ", which this role lacks", "42501", {},
                          "Run inside the server instead (--server, i.e. " + server_function +
                              "): it works without read access when the table's owner granted a privacy budget.");
  std::cerr << "NOTICE:  controller mode needs " << missing << ", which this role lacks: " << run
            << " inside the server (" << server_function << ") instead\n";
  return true;
}

nlohmann::json stored_model_json(std::int64_t model_id, const Model& m, double seconds, bool server) {
  return {{"model_id", model_id},
          {"name", m.name},
          {"algorithm", m.algorithm},
          {"epsilon", m.epsilon ? nlohmann::json(*m.epsilon) : nlohmann::json()},
          {"delta", m.delta ? nlohmann::json(*m.delta) : nlohmann::json()},
          {"seconds", seconds},
          {"seeded", m.seeded},
          {"mode", server ? "server" : "controller"},
          {"details", m.details}};
}

}  // namespace dptrain::cli
