// dptrain predict: the class (and, for logistic models, the class
// probabilities) a stored model gives one feature vector, or every row of a
// raw data file read with the model's load spec (--file, raw_file.h).
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "extension.h"
#include "model_reference.h"
#include "pg_connection.h"
#include "raw_file.h"

namespace dptrain::cli {
namespace {

struct PredictOptions {
  std::string db, model;
  std::vector<double> features;
  RawFile file;
  bool json = false;
};

// Models dp_predict_proba answers for: logistic loss, and not a 0/1-loss
// OPDisc model on binarized features (refused, core/packed_model.h; its
// algorithm for models stored before the recorded threshold).
constexpr const char* kHasProbabilities =
    "m.loss = 'logistic' AND m.algorithm <> 'opdisc' AND m.details #> '{hyperparameters,binarize_threshold}' IS NULL";

std::string pg_array(const std::vector<double>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + nlohmann::json(v[i]).dump();
  return s + "}";
}

void run(const PredictOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  const std::string x = pg_array(o.features);
  // dp_predict first: it reports a missing model or a bad vector itself.
  const std::string label = conn.exec("SELECT " + schema + ".dp_predict($1::text, $2::float8[])", {o.model, x}).get(0, 0);
  nlohmann::json j = {{"model", o.model}, {"class", label}};
  client::PgResult r = conn.exec("SELECT array_to_json(m.classes)::text, CASE WHEN " + std::string(kHasProbabilities) + " THEN "
                                 "array_to_json(" + schema + ".dp_predict_proba($1::text, $2::float8[]))::text END "
                                 "FROM dptrain.models m WHERE " + std::string(kModelByReference),
                                 {o.model, x});
  if (r.rows() == 1 && !r.is_null(0, 1)) {
    const auto classes = nlohmann::json::parse(r.get(0, 0)), probs = nlohmann::json::parse(r.get(0, 1));
    nlohmann::json pr = nlohmann::json::object();
    for (std::size_t k = 0; k < classes.size(); ++k) pr[classes[k].get<std::string>()] = probs[k];
    j["probabilities"] = pr;
  }
  if (o.json) {
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << label << "\n";
  if (j.contains("probabilities"))
    for (auto& [k, v] : j["probabilities"].items()) std::cout << "  P(" << k << ") = " << v.get<double>() << "\n";
}

// One line per row of the file, in file order: "row,class[,P(class)...]"
// (row: the 0-based data-row number, as the id column of dptrain load), or
// one JSON object per line with --json.
void run_file(const PredictOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  conn.exec("BEGIN");
  const std::string table = load_raw_file(conn, o.model, o.file);
  // dp_predict first: it reports a model it may not use itself.
  client::PgResult r = conn.exec(
      "SELECT t.id, " + schema + ".dp_predict($1::text, t.x::float8[]), CASE WHEN " + std::string(kHasProbabilities) +
          " THEN array_to_json(" + schema +
          ".dp_predict_proba($1::text, t.x::float8[]))::text END, array_to_json(m.classes)::text "
          "FROM " + table + " t, dptrain.models m WHERE " + std::string(kModelByReference) + " ORDER BY t.id",
      {o.model});
  conn.exec("COMMIT");
  const nlohmann::json classes = r.rows() ? nlohmann::json::parse(r.get(0, 3)) : nlohmann::json::array();
  const bool proba = r.rows() && !r.is_null(0, 2);
  if (!o.json) {
    std::cout << "row,class";
    if (proba)
      for (const auto& c : classes) std::cout << ",P(" << c.get<std::string>() << ")";
    std::cout << "\n";
  }
  for (int i = 0; i < r.rows(); ++i) {
    nlohmann::json j = {{"row", std::stoll(r.get(i, 0))}, {"class", r.get(i, 1)}};
    if (proba) {
      const auto probs = nlohmann::json::parse(r.get(i, 2));
      nlohmann::json pr = nlohmann::json::object();
      for (std::size_t k = 0; k < classes.size(); ++k) pr[classes[k].get<std::string>()] = probs[k];
      j["probabilities"] = pr;
    }
    if (o.json) {
      std::cout << j.dump() << "\n";
      continue;
    }
    std::cout << r.get(i, 0) << "," << r.get(i, 1);
    if (proba)
      for (const auto& p : nlohmann::json::parse(r.get(i, 2))) std::cout << "," << p.get<double>();
    std::cout << "\n";
  }
}

}  // namespace

void register_predict(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "class (and probabilities) a stored model gives one feature vector or each row of a raw data file");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--model", o->model, "model name or id")->required();
  CLI::Option* features = cmd->add_option("--features", o->features, "feature values, comma separated")->delimiter(',');
  CLI::Option* file = cmd->add_option(
      "--file", o->file.path,
      "raw data file: one prediction per row, read with the preprocessing of the table dptrain load made for the "
      "model (its load spec)");
  features->excludes(file);
  file->excludes(features);
  cmd->add_option("--labels-file", o->file.labels_file, "with --file, IDX: the labels file (default: from the name)")
      ->needs(file);
  cmd->add_flag("--json", o->json, "print one JSON object (with --file: one per row)");
  cmd->callback([o] {
    if (o->features.empty() && o->file.path.empty())
      throw CLI::RequiredError("--features or --file (a feature vector, or a raw data file of a model trained on a "
                               "table dptrain load made)");
    if (o->file.path.empty()) run(*o);
    else run_file(*o);
  });
}

}  // namespace dptrain::cli
