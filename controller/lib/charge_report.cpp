#include "charge_report.h"

#include <string>
#include <utility>

namespace dptrain::client {
namespace {

std::string& note() {
  static std::string n;
  return n;
}

// The rows a run of this session adds (dptrain.ledger is row-level secured:
// a role reads its own rows). session_role = who logged in, as the charge
// records it (sql/40_ledger.sql); the model is looked up as its creator may.
// (search_path is pg_catalog, pg_temp on every connection: pg_connection.h)
constexpr const char* kSince =
    "SELECT l.id, l.algorithm, l.epsilon::text, l.delta::text, l.model_id, l.budgeted, "
    "coalesce((to_jsonb(l) ->> 'capped')::boolean, false), "  // (no column capped in 0.1)
    "EXISTS (SELECT FROM dptrain.models m WHERE m.id = l.model_id) "
    "FROM dptrain.ledger l WHERE l.id > $1::bigint AND l.session_role = session_user "
    // the run's table; 0: a relation dropped since (sql/45_budgets.sql)
    "AND l.source::oid IN ($2::oid, 0) ORDER BY l.id";

}  // namespace

void set_failure_note(std::string n) { note() = std::move(n); }
const std::string& failure_note() { return note(); }

ChargeWatch::ChargeWatch(PgConnection& conn, std::string conninfo, const std::string& table)
    : conninfo_(std::move(conninfo)) {
  try {
    PgResult r = conn.exec("SELECT coalesce(max(id), 0), $1::regclass::oid FROM dptrain.ledger "
                           "WHERE session_role = session_user",
                           {table});
    table_oid_ = r.get(0, 1);
    mark_ = std::stoll(r.get(0, 0));
  } catch (const PgError&) {
    // No ledger here, or no such table (the run fails before any charge):
    // nothing to watch. The statement ran outside any transaction, so the
    // run goes on.
  }
}

std::string ChargeWatch::report() const {
  if (!mark_) return {};
  try {
    PgConnection conn(conninfo_, PgConnection::Purpose::kReport);
    PgResult r = conn.exec(kSince, {std::to_string(*mark_), table_oid_});
    std::string out;
    for (int i = 0; i < r.rows(); ++i) {
      const bool is_private = !r.is_null(i, 2);
      out += "NOTE:  ledger row " + r.get(i, 0) + ": this run (" + r.get(i, 1) + ") was charged ";
      const bool delta = !r.is_null(i, 3) && std::stod(r.get(i, 3)) != 0;
      out += is_private ? "epsilon = " + r.get(i, 2) + (delta ? ", delta = " + r.get(i, 3) : std::string())
                        : std::string("nothing (not private; logged)");
      if (r.get(i, 5) == "t") out += ", to your budget";
      if (r.get(i, 6) == "t") out += ", to the table's cap";
      if (r.get(i, 7) == "t")
        out += "; its model " + r.get(i, 4) + " WAS stored (dptrain models)\n";
      else
        out += "; no model was stored, and the charge stays (docs/governance.md)\n";
    }
    return out;
  } catch (const PgError& e) {
    return "NOTE:  could not read the privacy ledger after the failure (" + std::string(e.what()) +
           (e.sqlstate.empty() ? "" : ", SQLSTATE " + e.sqlstate) +
           "): whether this run was charged, or even stored its model, is unknown. Check with `dptrain budget "
           "show --table ...` and `dptrain models` once the server answers (a charge, once made, stays).\n";
  }
}

}  // namespace dptrain::client
