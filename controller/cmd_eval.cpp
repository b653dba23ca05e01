// dptrain eval: metrics of a stored model on a labelled table (dp_evaluate).
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "extension.h"
#include "pg_connection.h"

namespace dptrain::cli {
namespace {

struct EvalOptions {
  std::string db, model, table, label = "y", features = "x";
  bool json = false;
};

// The model reference as SQL over $1: an id, or the name of one of the caller's models.
constexpr const char* kModelId =
    "CASE WHEN $1 ~ '^\\s*[-+]?[0-9]+\\s*$' THEN $1::bigint "
    "ELSE (SELECT id FROM dptrain.models WHERE name = $1 AND created_by = current_user) END";

void run(const EvalOptions& o, bool features_given) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  const std::string table = conn.resolve_relation(o.table);
  // Without --features, a model that stores an encoding (docs/encoding.md)
  // is evaluated on the raw columns (dp_evaluate with features NULL) of a
  // table without an x column (an encoded view has one: it is used as before).
  client::Param features = o.features;
  if (!features_given &&
      conn.exec(std::string("SELECT coalesce((SELECT details ? 'encoding' FROM dptrain.models WHERE id = ") +
                    kModelId + "), false) AND NOT EXISTS (SELECT FROM pg_catalog.pg_attribute "
                    "WHERE attrelid = $2::regclass AND attname = $3 AND attnum > 0 AND NOT attisdropped)",
                {o.model, table, o.features})
              .get(0, 0) == "t")
    features = std::nullopt;
  // dp_evaluate resolves the reference (an id, or the name of one of the
  // caller's own models) and reports a missing one; then the same model's record.
  client::PgResult r = conn.exec(
      "SELECT e.accuracy, e.n, e.loss, m.id, m.algorithm, m.epsilon, m.delta, m.seeded, "
      "e.majority_rate, e.precision, e.recall, e.f1, e.roc_auc, e.macro_f1, e.classes::text, e.confusion::text "
      "FROM " + schema + ".dp_evaluate($1, $2::regclass, $3, $4) e, dptrain.models m "
      "WHERE m.id = " + kModelId,
      {o.model, table, o.label, features});
  if (r.rows() != 1) throw client::PgError("model \"" + o.model + "\" does not exist", "42704");
  const double accuracy = std::stod(r.get(0, 0));
  auto optional = [&r](int column) { return r.is_null(0, column) ? nlohmann::json() : nlohmann::json(std::stod(r.get(0, column))); };
  if (o.json) {
    nlohmann::json j = {{"model", o.model},
                        {"model_id", std::stoll(r.get(0, 3))},
                        {"table", o.table},
                        {"accuracy", accuracy},
                        {"n", std::stoll(r.get(0, 1))},
                        {"loss", std::stod(r.get(0, 2))},
                        {"algorithm", r.get(0, 4)},
                        {"epsilon", r.is_null(0, 5) ? nlohmann::json() : nlohmann::json(std::stod(r.get(0, 5)))},
                        {"delta", r.is_null(0, 6) ? nlohmann::json() : nlohmann::json(std::stod(r.get(0, 6)))},
                        {"seeded", r.get(0, 7) == "t"},
                        {"majority_rate", std::stod(r.get(0, 8))},
                        {"precision", optional(9)},
                        {"recall", optional(10)},
                        {"f1", optional(11)},
                        {"roc_auc", optional(12)},
                        {"macro_f1", optional(13)},
                        {"classes", r.get(0, 14)},
                        {"confusion", r.get(0, 15)}};
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "accuracy " << accuracy << " on " << r.get(0, 1) << " rows of " << o.table << " (model " << o.model
              << ", mean loss " << r.get(0, 2) << ")\n"
              << "majority-class rate " << r.get(0, 8) << " (a model no better than this has learned nothing)\n";
    if (!r.is_null(0, 12))
      std::cout << "precision " << r.get(0, 9) << ", recall " << r.get(0, 10) << ", F1 " << r.get(0, 11)
                << ", ROC AUC " << r.get(0, 12) << " (positive class: the second of " << r.get(0, 14) << ")\n";
    if (!r.is_null(0, 13)) std::cout << "macro-F1 " << r.get(0, 13) << "\n";
    std::cout << "confusion matrix [true][predicted] " << r.get(0, 15) << "\n";
  }
}

}  // namespace

void register_eval(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand("eval", "metrics of a stored model on a labelled table");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--model", o->model, "model name or id")->required();
  cmd->add_option("--table", o->table, "labelled table")->required();
  cmd->add_option("--label", o->label, "label column")->capture_default_str();
  cmd->add_option("--features", o->features,
                  "float8[] feature column (default: x, or the raw columns for a model that stores an encoding)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, cmd] { run(*o, cmd->count("--features") > 0); });
}

}  // namespace dptrain::cli
