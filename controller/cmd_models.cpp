// dptrain models: list your models (or all you may see); rename and drop
// your own (dp_rename_model / dp_drop_model: only their creator may).
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "extension.h"
#include "model_name_flag.h"
#include "model_reference.h"
#include "pg_connection.h"

namespace dptrain::cli {
namespace {

struct ModelsOptions {
  std::string db, model, to;
  bool json = false, all = false;
};

void list(const ModelsOptions& o) {
  client::PgConnection conn(o.db);
  client::api_schema(conn);  // a clear error if the extension is missing
  client::PgResult r = conn.exec(
      "SELECT m.id, coalesce(m.name, ''), m.algorithm, m.loss, m.epsilon, m.delta, m.private, m.seeded, m.source, "
      "m.created_by, to_char(m.created_at, 'YYYY-MM-DD HH24:MI:SS') FROM dptrain.models m "
      "WHERE $1 OR m.created_by = current_user ORDER BY m.id",
      {std::string(o.all ? "true" : "false")});
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < r.rows(); ++i) {
    auto number = [&](int c) { return r.is_null(i, c) ? nlohmann::json() : nlohmann::json(std::stod(r.get(i, c))); };
    rows.push_back({{"id", std::stoll(r.get(i, 0))}, {"name", r.get(i, 1)},   {"algorithm", r.get(i, 2)},
                    {"loss", r.get(i, 3)},           {"epsilon", number(4)},  {"delta", number(5)},
                    {"private", r.get(i, 6) == "t"}, {"seeded", r.get(i, 7) == "t"}, {"source", r.get(i, 8)},
                    {"created_by", r.get(i, 9)},     {"created_at", r.get(i, 10)}});
  }
  if (o.json) {
    std::cout << rows.dump() << "\n";
    return;
  }
  std::printf("%6s  %-20s %-10s %-9s %8s %9s  %-7s %-20s %s\n", "id", "name", "algorithm", "loss", "epsilon", "delta",
              "private", "source", "created");
  for (int i = 0; i < r.rows(); ++i)
    std::printf("%6s  %-20s %-10s %-9s %8s %9s  %-7s %-20s %s\n", r.get(i, 0).c_str(), r.get(i, 1).c_str(),
                r.get(i, 2).c_str(), r.get(i, 3).c_str(),
                // 6 significant digits, as the CLI prints epsilon elsewhere: DP-SGD records the
                // epsilon its accountant reached (0.9999999999654541), which pushed the row out
                // of its columns; --json keeps every digit
                r.is_null(i, 4) ? "-" : format_privacy(std::stod(r.get(i, 4))).c_str(),
                format_delta(r.get(i, 5)).c_str(), r.get(i, 6) == "t" ? "yes" : "no", r.get(i, 8).c_str(),
                r.get(i, 10).c_str());
  if (r.rows() == 0) std::cout << (o.all ? "no models you may see\n" : "you have no models (--all: every model you may see)\n");
}

void rename(const ModelsOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  const std::string id = conn.exec("SELECT " + schema + ".dp_rename_model($1::text, $2::text)", {o.model, o.to}).get(0, 0);
  std::cout << "model " << id << " is now named " << o.to << "\n";
}

void drop(const ModelsOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  const std::string id = conn.exec("SELECT " + schema + ".dp_drop_model($1::text)", {o.model}).get(0, 0);
  std::cout << "model " << id << " dropped (the privacy it spent stays in the ledger)\n";
}

}  // namespace

void register_models(CLI::App& app) {
  auto o = std::make_shared<ModelsOptions>();
  CLI::App* cmd = app.add_subcommand("models", "list your models; rename or drop one of them");
  cmd->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->add_flag("--all", o->all, "every model you may see, not only yours");
  cmd->add_flag("--json", o->json, "print a JSON array");
  CLI::App* ren = cmd->add_subcommand("rename", "rename one of your models");
  ren->add_option("--model", o->model, "model name or id")->required();
  ren->add_option("--to", o->to, "the new name")->required()->check(client::model_name_flag());
  ren->callback([o] { rename(*o); });
  CLI::App* del = cmd->add_subcommand("drop", "delete one of your models (its privacy cost stays spent)");
  del->add_option("--model", o->model, "model name or id")->required();
  del->callback([o] { drop(*o); });
  for (CLI::App* sub : {ren, del}) sub->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
  cmd->callback([o, cmd] {
    if (cmd->get_subcommands().empty()) list(*o);
  });
}

}  // namespace dptrain::cli
