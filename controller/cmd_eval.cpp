// dptrain eval: metrics of a stored model on a labelled table (dp_evaluate),
// or on a raw data file read with the model's load spec (--file, raw_file.h).
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "extension.h"
#include "pg_connection.h"
#include "raw_file.h"

namespace dptrain::cli {
namespace {

struct EvalOptions {
  std::string db, model, table, label = "y", features = "x";
  RawFile file;
  bool json = false;
};

// The model reference as SQL over $1: an id, or the name of one of the caller's models.
constexpr const char* kModelId =
    "CASE WHEN $1 ~ '^\\s*[-+]?[0-9]+\\s*$' THEN $1::bigint "
    "ELSE (SELECT id FROM dptrain.models WHERE name = $1 AND created_by = current_user) END";

void run(const EvalOptions& o, bool features_given) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  // A raw file becomes a temporary table (id, x, y) for this transaction.
  const bool raw = !o.file.path.empty();
  if (raw) conn.exec("BEGIN");
  const std::string table = raw ? load_raw_file(conn, o.model, o.file) : conn.resolve_relation(o.table);
  const std::string shown = raw ? o.file.path : o.table;
  // Without --features, a model that stores an encoding (docs/encoding.md)
  // is evaluated on the raw columns (dp_evaluate with features NULL) of a
  // table without an x column (an encoded view has one: it is used as before).
  client::Param features = o.features;
  if (!raw && !features_given &&
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
      "e.majority_rate, e.precision, e.recall, e.f1, e.roc_auc, e.macro_f1, e.classes::text, e.confusion::text, "
      "array_to_json(e.classes)::text, array_to_json(e.confusion)::text "
      "FROM " + schema + ".dp_evaluate($1::text, $2::regclass, $3::text, $4::text) e, dptrain.models m "
      "WHERE m.id = " + kModelId,
      {o.model, table, o.label, features});
  if (r.rows() != 1) throw client::PgError("model \"" + o.model + "\" does not exist", "42704");
  if (raw) conn.exec("COMMIT");
  const double accuracy = std::stod(r.get(0, 0));
  auto optional = [&r](int column) { return r.is_null(0, column) ? nlohmann::json() : nlohmann::json(std::stod(r.get(0, column))); };
  if (o.json) {
    nlohmann::json j = {{"model", o.model},
                        {"model_id", std::stoll(r.get(0, 3))},
                        {raw ? "file" : "table", shown},
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
                        {"classes", nlohmann::json::parse(r.get(0, 16))},
                        {"confusion", nlohmann::json::parse(r.get(0, 17))}};
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "accuracy " << accuracy << " on " << r.get(0, 1) << " rows of " << shown << " (model " << o.model
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
  CLI::App* cmd = app.add_subcommand("eval", "metrics of a stored model on a labelled table or raw data file");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_option("--model", o->model, "model name or id")->required();
  CLI::Option* table = cmd->add_option("--table", o->table, "labelled table");
  CLI::Option* file = cmd->add_option(
      "--file", o->file.path,
      "raw data file, read with the preprocessing of the table dptrain load made for the model (its load spec)");
  table->excludes(file);
  file->excludes(table);
  cmd->add_option("--labels-file", o->file.labels_file, "with --file, IDX: the labels file (default: from the name)")
      ->needs(file);
  cmd->add_option("--label", o->label, "label column")->capture_default_str();
  cmd->add_option("--features", o->features,
                  "float8[] feature column (default: x, or the raw columns for a model that stores an encoding)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, cmd] {
    if (o->table.empty() && o->file.path.empty())
      throw CLI::RequiredError("--table or --file (a labelled table, or a raw data file of a model trained on a "
                               "table dptrain load made)");
    if (!o->file.path.empty() && (cmd->count("--label") || cmd->count("--features")))
      throw CLI::ValidationError("--file", "--label and --features apply to --table: a raw file is read with the "
                                           "model's load spec");
    run(*o, cmd->count("--features") > 0);
  });
}

}  // namespace dptrain::cli
