// dptrain budget: what is left of your privacy budget on a table, and, for
// the table's owner, granting, revoking and capping it (dp_grant_budget,
// dp_revoke_budget, dp_set_table_budget; docs/governance.md).
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "extension.h"
#include "model_reference.h"
#include "pg_connection.h"

namespace dptrain::cli {
namespace {

struct BudgetOptions {
  std::string db, table, role;
  double epsilon = 0, delta = 0;
  bool json = false;
};

void show(const BudgetOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  const std::string table = conn.resolve_relation(o.table);
  client::Param role = o.role.empty() ? client::Param() : client::Param(o.role);
  client::PgResult r = conn.exec("SELECT b.epsilon, b.delta, t.epsilon, t.delta FROM " + schema +
                                     ".dp_budget_remaining($1::regclass, $2::name) b, " + schema +
                                     ".dp_table_budget_remaining($1::regclass) t",
                                 {table, role});
  auto number = [&](int c) { return r.is_null(0, c) ? nlohmann::json() : nlohmann::json(std::stod(r.get(0, c))); };
  const std::string who = o.role.empty() ? "you" : o.role;
  if (o.json) {
    std::cout << nlohmann::json{{"table", o.table}, {"role", who}, {"epsilon", number(0)}, {"delta", number(1)},
                                {"table_epsilon", number(2)}, {"table_delta", number(3)}}
                     .dump()
              << "\n";
    return;
  }
  if (r.is_null(0, 0)) std::cout << who << ": no budget on " << o.table << " (the owner grants one: dptrain budget grant)\n";
  else
    std::cout << who << ": epsilon " << r.get(0, 0) << ", delta " << format_delta(r.get(0, 1)) << " left on " << o.table
              << "\n";
  if (!r.is_null(0, 2))
    std::cout << "table cap: epsilon " << r.get(0, 2) << ", delta " << format_delta(r.get(0, 3))
              << " left for all roles\n";
}

void grant(const BudgetOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  conn.exec("SELECT " + schema + ".dp_grant_budget($1::regclass, $2::name, $3::float8, $4::float8)",
            {conn.resolve_relation(o.table), o.role, nlohmann::json(o.epsilon).dump(), nlohmann::json(o.delta).dump()});
  std::cout << o.role << " may now spend epsilon " << o.epsilon << ", delta " << format_delta(std::to_string(o.delta))
            << " on " << o.table << "\n";
}

void revoke(const BudgetOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  const bool had = conn.exec("SELECT " + schema + ".dp_revoke_budget($1::regclass, $2::name)",
                             {conn.resolve_relation(o.table), o.role})
                       .get(0, 0) == "t";
  std::cout << (had ? "revoked the budget of " : "there was no budget of ") << o.role << " on " << o.table << "\n";
}

void cap(const BudgetOptions& o) {
  client::PgConnection conn(o.db);
  const std::string schema = client::api_schema(conn);
  conn.exec("SELECT " + schema + ".dp_set_table_budget($1::regclass, $2::float8, $3::float8)",
            {conn.resolve_relation(o.table), nlohmann::json(o.epsilon).dump(), nlohmann::json(o.delta).dump()});
  std::cout << o.table << ": all private runs together may spend at most epsilon " << o.epsilon << ", delta "
            << format_delta(std::to_string(o.delta)) << "\n";
}

}  // namespace

void register_budget(CLI::App& app) {
  auto o = std::make_shared<BudgetOptions>();
  CLI::App* cmd = app.add_subcommand("budget", "privacy budgets on a table: show, grant, revoke, cap");
  cmd->require_subcommand(1);
  auto common = [&](CLI::App* sub) {
    sub->add_option("--db", o->db, "libpq connection string (default: PG* environment)");
    sub->add_option("--table", o->table, "the table")->required();
  };
  CLI::App* s = cmd->add_subcommand("show", "budget left to a role (default: you) and the table's cap");
  common(s);
  s->add_option("--role", o->role, "role (default: you)");
  s->add_flag("--json", o->json, "print one JSON object");
  s->callback([o] { show(*o); });
  CLI::App* g = cmd->add_subcommand("grant", "table owner: let a role train on the table up to (epsilon, delta)");
  common(g);
  g->add_option("--role", o->role, "the role")->required();
  g->add_option("--epsilon", o->epsilon, "total epsilon > 0")->required();
  g->add_option("--delta", o->delta, "total delta in [0, 1)")->capture_default_str();
  g->callback([o] { grant(*o); });
  CLI::App* r = cmd->add_subcommand("revoke", "table owner: remove a role's budget (what it spent stays spent)");
  common(r);
  r->add_option("--role", o->role, "the role")->required();
  r->callback([o] { revoke(*o); });
  CLI::App* c = cmd->add_subcommand("cap", "table owner: cap the total privacy loss of all private runs on the table");
  common(c);
  c->add_option("--epsilon", o->epsilon, "total epsilon > 0")->required();
  c->add_option("--delta", o->delta, "total delta in [0, 1)")->capture_default_str();
  c->callback([o] { cap(*o); });
}

}  // namespace dptrain::cli
