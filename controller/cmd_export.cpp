// dptrain export: a stored model as one JSON document (docs/export.md), to
// score outside the database.
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/model.h"
#include "extension.h"
#include "model_reference.h"
#include "output_file.h"
#include "pg_connection.h"

namespace dptrain::cli {
namespace {

struct ExportOptions {
  std::string db, model, out;
};

nlohmann::json exported(client::PgConnection& conn, const std::string& model) {
  client::api_schema(conn);
  client::PgResult r = conn.exec(
      "SELECT m.id, m.name, m.algorithm, m.loss, array_to_json(m.classes)::text, m.weights::text, "
      "array_length(m.classes, 1), m.epsilon, m.delta, m.private, m.seeded, m.source, m.details::text, "
      "m.created_by, m.created_at::text FROM dptrain.models m WHERE " + std::string(kModelByReference),
      {model});
  if (r.rows() != 1)
    throw client::PgError("model \"" + model + "\" does not exist", "42704", {},
                          "List your models with: dptrain models (or dptrain models --all).");
  const nlohmann::json details = nlohmann::json::parse(r.get(0, 12));
  // The stored weights are d values (binary) or K x d: rows of the matrix.
  std::string w = r.get(0, 5);
  for (char& c : w) c = c == '{' ? '[' : c == '}' ? ']' : c;
  nlohmann::json weights = nlohmann::json::parse(w);
  if (!weights.empty() && !weights[0].is_array()) weights = nlohmann::json::array({weights});
  // With an intercept the stored rows end with the bias weight, which
  // multiplies the constant feature b: export K x d weights and the K
  // intercepts w_bias * b (docs/export.md).
  nlohmann::json intercept = nullptr;
  const nlohmann::json& h = details.value("hyperparameters", nlohmann::json::object());
  if (h.value("intercept", false)) {
    const double b = h.at("intercept_feature").get<double>();
    intercept = nlohmann::json::array();
    for (auto& row : weights) {
      intercept.push_back(row.back().get<double>() * b);
      row.erase(row.size() - 1);
    }
  }
  // OPDisc scores binarized features (docs/opdisc.md): x_j -> 1 if x_j >= t,
  // else 0, after the encoding: the threshold prediction reads
  // (Model::binarize_threshold, 1/2 for models stored before the field).
  Model stored;
  stored.algorithm = r.get(0, 2);
  stored.details = details;
  const std::optional<double> threshold = stored.binarize_threshold();
  const nlohmann::json binarize = threshold ? nlohmann::json(*threshold) : nlohmann::json();
  auto number = [&](int c) { return r.is_null(0, c) ? nlohmann::json() : nlohmann::json(std::stod(r.get(0, c))); };
  // Version 2 = a scorer must binarize first: a version-1 scorer, which knows
  // no binarize_threshold, would score the raw values (another classifier).
  // Every other model stays version 1, which such a scorer still reads right.
  const int version = binarize.is_null() ? 1 : 2;
  return {{"format", "dptrain-export"},
          {"version", version},
          {"id", std::stoll(r.get(0, 0))},
          {"name", r.get_opt(0, 1) ? nlohmann::json(r.get(0, 1)) : nlohmann::json()},
          {"algorithm", r.get(0, 2)},
          {"loss", r.get(0, 3)},
          {"classes", nlohmann::json::parse(r.get(0, 4))},
          {"weights", weights},
          {"intercept", intercept},
          {"feature_bound", details.value("/hyperparameters/feature_bound"_json_pointer, 1.0)},
          {"binarize_threshold", binarize},
          {"encoding", details.contains("encoding") ? details["encoding"] : nlohmann::json()},
          {"load_spec", details.contains("load_spec") ? details["load_spec"] : nlohmann::json()},
          {"privacy",
           {{"epsilon", number(7)}, {"delta", number(8)}, {"private", r.get(0, 9) == "t"},
            {"seeded", r.get(0, 10) == "t"}}},
          {"source", r.get(0, 11)},
          {"created_by", r.get(0, 13)},
          {"created_at", r.get(0, 14)},
          {"details", details}};
}

void run(const ExportOptions& o) {
  client::PgConnection conn(o.db);
  const std::string text = exported(conn, o.model).dump(2) + "\n";
  if (o.out.empty() || o.out == "-") {
    std::cout << text;
    return;
  }
  client::write_output_file(o.out, text);  // never a partial file (output_file.h)
  std::cerr << "model " << o.model << " written to " << o.out << "\n";
}

}  // namespace

void register_export(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export", "a stored model as JSON, to score outside the database (docs/export.md)");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--model", o->model, "model name or id")->required();
  cmd->add_option("--out", o->out, "output file (default: standard output)");
  cmd->callback([o] { run(*o); });
}

}  // namespace dptrain::cli
