// dptrain tune: private hyperparameter tuning over a grid of (lambda,
// epochs, batch size) (Bolt-on Algorithm 3; see remote_tuning.h and
// docs/tuning.md). Prints the chosen parameters and the total privacy.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "remote_tuning.h"
#include "run_options.h"

namespace dptrain::cli {
namespace {

struct TuneOptions : RunOptions {
  tuning::Grid grid;
};

std::string show(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

void run(TuneOptions& o, const CLI::App& cmd) {
  apply_run_options(o, cmd);
  const TrainingConfig& c = o.config;
  client::PgConnection conn(o.db);
  o.target.table = conn.resolve_relation(o.target.table);  // under the user's search_path
  const bool server = use_server(
      o, [&] { return client::tuning_controller_missing_privileges(conn, o.target, c); }, "tuning", "dp_tune");
  const client::TuningOutcome r = server ? client::tune_in_server(conn, o.target, c, o.grid)
                                         : client::tune_with_controller(conn, o.target, c, o.grid, !o.json);
  const Model& m = r.model;
  if (o.json) {
    nlohmann::json chosen = r.chosen.to_json();
    chosen["index"] = m.details["tuning"]["chosen"]["index"];
    nlohmann::json j = stored_model_json(r.model_id, m, r.seconds, server);
    j["chosen"] = chosen;
    j["candidates"] = r.candidates;
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
  add_run_options(cmd, *o, "tuning", "dp_tune");
  cmd->add_option("--algorithm", o->config.algorithm, "a private algorithm: bolton | ...")->capture_default_str();
  cmd->add_option("--epsilon", o->epsilon, "total privacy budget epsilon")->required();
  cmd->add_option("--delta", o->delta, "total delta (0 = pure epsilon-DP)");
  cmd->add_option("--lambdas", o->grid.lambdas, "candidate L2 regularizations")->delimiter(',')->capture_default_str();
  cmd->add_option("--epochs", o->grid.epochs, "candidate numbers of epochs")->delimiter(',')->capture_default_str();
  cmd->add_option("--batch-sizes", o->grid.batch_sizes, "candidate batch sizes")->delimiter(',')->capture_default_str();
  cmd->add_option("--name", o->config.name, "name of the chosen model");
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace dptrain::cli
