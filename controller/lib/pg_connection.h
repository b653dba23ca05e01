// A small RAII layer over libpq for the CLI and the benchmarks.
#pragma once

#include <libpq-fe.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dptrain::client {

// An error reported by the server (or by libpq), with its SQLSTATE.
// The hint for a table name that is not valid SQL (e.g. 'My Table' unquoted),
// shared by every command that reads --table.
constexpr const char* kQuoteTableNameHint =
    "Quote a name with capitals, spaces or other special characters as in SQL: --table '\"My Table\"' "
    "(schema.table for another schema).";

class PgError : public std::runtime_error {
 public:
  PgError(std::string message, std::string sqlstate = {}, std::string detail = {}, std::string hint = {})
      : std::runtime_error(std::move(message)), sqlstate(std::move(sqlstate)), detail(std::move(detail)),
        hint(std::move(hint)) {}
  std::string sqlstate, detail, hint;
};

// The failure of PQconnectdb as one line (SQLSTATE 08001): libpq's line per
// address tried joined by "; ", its indented questions ("Is the server
// running ...?") as the hint.
PgError connection_failure(const std::string& libpq_message);

class PgResult {
 public:
  explicit PgResult(PGresult* r) : r_(r, PQclear) {}
  int rows() const { return PQntuples(r_.get()); }
  int columns() const { return PQnfields(r_.get()); }
  bool is_null(int row, int col) const { return PQgetisnull(r_.get(), row, col); }
  std::string get(int row, int col) const { return PQgetvalue(r_.get(), row, col); }
  std::optional<std::string> get_opt(int row, int col) const {
    if (is_null(row, col)) return std::nullopt;
    return get(row, col);
  }
  int column(const std::string& name) const;  // throws if absent
  PGresult* raw() const { return r_.get(); }

 private:
  std::shared_ptr<PGresult> r_;
};

using Param = std::optional<std::string>;  // nullopt = SQL NULL

class PgConnection {
 public:
  // kRun: the connection of a command (Ctrl-C cancels its statement, and
  // refuses every later one). kReport: opened after a run failed, to read
  // what it left (charge_report.h): it still answers after Ctrl-C, and gives
  // up connecting after connect_timeout (10 s unless the conninfo sets one)
  // rather than hang on a server that went away.
  enum class Purpose { kRun, kReport };
  explicit PgConnection(const std::string& conninfo, Purpose purpose = Purpose::kRun);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Run one statement; throws PgError on failure. NOTICEs go to `on_notice`.
  PgResult exec(const std::string& sql);
  PgResult exec(const std::string& sql, const std::vector<Param>& params);
  // A statement returning one float8[] value (a pass) whose last parameter is
  // a float8[] (after the text `params`): the array both ways in binary
  // (float8_array_binary.h). Throws PgError if it returns no row or NULL;
  // `what` names it there.
  std::vector<double> exec_float8_array(const std::string& sql, const std::vector<Param>& params,
                                        const std::vector<double>& array, const std::string& what);
  // COPY ... FROM STDIN: `produce` fills a chunk and returns false when done.
  void copy_in(const std::string& copy_sql, const std::function<bool(std::string&)>& produce);

  // Every statement of the CLI runs with search_path = pg_catalog, pg_temp
  // (set on connecting), so that no function, operator or type its SQL names
  // can be shadowed by an object someone planted in a schema on the user's
  // path. Names the user gives are resolved against the user's own path:
  // an existing relation -> schema-qualified and quoted (unchanged if there
  // is none: the server then says so);
  std::string resolve_relation(const std::string& name);
  // the schema an unqualified new table goes to (quoted).
  std::string creation_schema() const;

  std::string quote_ident(const std::string& s) const;
  std::string quote_literal(const std::string& s) const;
  PGconn* raw() { return c_; }

  // Receives server NOTICE/WARNING messages (default: print to stderr).
  std::function<void(const std::string& severity, const std::string& message)> on_notice;

 private:
  PgResult check(PGresult* r);
  void refuse_if_interrupted(const std::string& sql) const;
  PgError copy_failed() const;
  PGconn* c_ = nullptr;
  PGcancel* cancel_ = nullptr;
  Purpose purpose_;
  std::string user_search_path_;
  std::optional<std::string> creation_schema_;
};

// Ctrl-C (SIGINT) while a connection is open asks the server to cancel the
// running statement (PQcancel) and lets it answer: the statement then fails
// with SQLSTATE 57014, and every later statement of the run is refused, so
// the CLI unwinds (rolling back) and exits. A second Ctrl-C quits at once.
// SIGTERM and SIGHUP (kill, timeout(1), a closed terminal) do the same:
// they used to kill the CLI outright, and the server went on with the run,
// for nobody, until it next wrote to the client (a NOTICE, or the result at
// the end) and found it gone. A signal ignored when the CLI started
// (nohup, trap '') stays ignored.
bool interrupted();
// 128 + the number of the signal that interrupted the run (130 for SIGINT).
int interrupt_exit_code();

// float8[] text representation, both ways (shortest round-trip digits).
std::string to_array_literal(const double* v, std::size_t n);
std::vector<double> parse_float_array(const std::string& text);

}  // namespace dptrain::client
