#include "remote_tuning.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/algorithms/algorithm.h"
#include "core/training/intercept.h"
#include "core/tuning/liu_talwar_tuner.h"
#include "extension.h"
#include "progress.h"
#include "transaction.h"

namespace dptrain::client {
namespace {


template <typename T>
std::string array_literal(const std::vector<T>& values, bool exact_doubles) {
  std::string s = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ',';
    s += exact_doubles ? exact_number(static_cast<double>(values[i])) : std::to_string(values[i]);
  }
  return s + "}";
}

tuning::Candidate chosen_candidate(const Model& m) {
  const auto& c = m.details.at("tuning").at("chosen");
  return {c.at("lambda").get<double>(), c.at("epochs").get<int>(), c.at("batch_size").get<std::int64_t>()};
}

}  // namespace

std::string tuning_controller_missing_privileges(PgConnection& conn, const TrainingTarget& target,
                                                 const TrainingConfig& config) {
  std::string missing = controller_missing_privileges(conn, target, config);
  if (conn.exec("SELECT has_function_privilege('dptrain.training_split(text, int)', 'EXECUTE')").get(0, 0) != "t")
    missing += std::string(missing.empty() ? "" : ", ") + "EXECUTE on dptrain.training_split";
  return missing;
}

TuningOutcome tune_with_controller(PgConnection& conn, const TrainingTarget& target, TrainingConfig config,
                                   const tuning::Grid& grid, bool show_progress) {
  validate_arguments(config);
  tuning::check_tunable(config);
  tuning::expand(grid);
  make_algorithm(config.algorithm);  // fail before touching the server
  api_schema(conn);
  const auto start = std::chrono::steady_clock::now();
  Transaction tx(conn);
  conn.exec("SET LOCAL jit = off");

  const std::string shuffled = prepare_remote_table(conn, target, config);
  tuning::Tuner tuner(intercept::planned_config(config), grid);  // training/intercept.h
  for (const auto& w : tuner.warnings()) std::cerr << "WARNING:  " << w << "\n";
  if (config.classes_from_data)
    std::cerr << "NOTICE:  the classes were read from the data: the list of classes is outside the privacy "
                 "guarantee (declare them with --classes)\n";

  ProgressBar bar("tuning", show_progress ? static_cast<int>(tuner.progress_total()) : 0);
  drive_remote(conn, tuner, shuffled, show_progress ? &bar : nullptr);
  if (show_progress) bar.finish_at(static_cast<int>(tuner.progress_done()));

  TuningOutcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.model = intercept::released_model(tuner.release(out.seconds), config);
  for (const auto& w : tuner.release_warnings()) std::cerr << "WARNING:  " << w << "\n";
  out.chosen = tuner.candidate(tuner.chosen());
  out.candidates = tuner.candidates();
  PgResult stored = conn.exec("SELECT dptrain.store_model($1::jsonb)", {out.model.to_json().dump()});
  out.model_id = std::stoll(stored.get(0, 0));
  tx.commit();
  return out;
}

TuningOutcome tune_in_server(PgConnection& conn, const TrainingTarget& target, const TrainingConfig& c,
                             const tuning::Grid& grid) {
  validate_arguments(c);
  tuning::expand(grid);
  const std::string schema = api_schema(conn);
  NamedCall call(schema + ".dp_tune", target, c);
  if (grid.lambdas_given) call.add("lambdas", "float8[]", array_literal(grid.lambdas, true));
  if (grid.epochs_given) call.add("epochs", "int[]", array_literal(grid.epochs, false));
  if (grid.batch_sizes_given) call.add("batch_sizes", "int[]", array_literal(grid.batch_sizes, false));
  const auto start = std::chrono::steady_clock::now();
  PgResult r = conn.exec(call.sql("model_id, candidates"), call.params());
  TuningOutcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.model_id = std::stoll(r.get(0, 0));
  out.candidates = std::stoi(r.get(0, 1));
  out.model = fetch_model(conn, out.model_id);
  out.chosen = chosen_candidate(out.model);
  return out;
}

LiuTalwarOutcome tune_liu_talwar_in_server(PgConnection& conn, const TrainingTarget& target,
                                           const TrainingConfig& c, const tuning::Grid& grid,
                                           const std::string& grid_json, double gamma) {
  // The checks dp_tune makes first, here too, before touching the server.
  const nlohmann::json j = grid_json.empty()
                               ? nlohmann::json{{"lambda", grid.lambdas}, {"epochs", grid.epochs},
                                                {"batch_size", grid.batch_sizes}}
                               : nlohmann::json::parse(grid_json);
  const tuning::ParameterGrid parsed = tuning::ParameterGrid::parse(j);
  tuning::check_liu_talwar(c, parsed, std::isnan(gamma) ? std::nullopt : std::optional<double>(gamma));
  const std::string schema = api_schema(conn);
  NamedCall call(schema + ".dp_tune", target, c);
  call.add("grid", "jsonb", parsed.to_json().dump());
  call.add("method", "text", std::string("liu_talwar"));
  if (!std::isnan(gamma)) call.add("gamma", "float8", exact_number(gamma));
  const auto start = std::chrono::steady_clock::now();
  PgResult r = conn.exec(call.sql("model_id, candidates"), call.params());
  LiuTalwarOutcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.model_id = std::stoll(r.get(0, 0));
  out.grid_points = std::stoi(r.get(0, 1));
  out.model = fetch_model(conn, out.model_id);
  out.chosen = out.model.details.at("tuning").at("chosen").at("point");
  return out;
}

}  // namespace dptrain::client
