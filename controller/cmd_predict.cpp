// dptrain predict: the class (and, for logistic models, the class
// probabilities) a stored model gives one feature vector.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "extension.h"
#include "model_reference.h"
#include "pg_connection.h"

namespace dptrain::cli {
namespace {

struct PredictOptions {
  std::string db, model;
  std::vector<double> features;
  bool json = false;
};

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
  const std::string label = conn.exec("SELECT " + schema + ".dp_predict($1, $2::float8[])", {o.model, x}).get(0, 0);
  nlohmann::json j = {{"model", o.model}, {"class", label}};
  client::PgResult r = conn.exec("SELECT array_to_json(m.classes)::text, CASE WHEN m.loss = 'logistic' THEN "
                                 "array_to_json(" + schema + ".dp_predict_proba($1, $2::float8[]))::text END "
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

}  // namespace

void register_predict(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "class (and probabilities) a stored model gives one feature vector");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--model", o->model, "model name or id")->required();
  cmd->add_option("--features", o->features, "feature values, comma separated")->required()->delimiter(',');
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] { run(*o); });
}

}  // namespace dptrain::cli
