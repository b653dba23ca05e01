#include "pg_connection.h"

#include "float8_array_binary.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>

namespace dptrain::client {
namespace {

void notice_receiver(void* arg, const PGresult* r) {
  auto* self = static_cast<PgConnection*>(arg);
  const char* sev = PQresultErrorField(r, PG_DIAG_SEVERITY);
  const char* msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  if (self->on_notice) self->on_notice(sev ? sev : "NOTICE", msg ? msg : "");
}

std::string field(const PGresult* r, int code) {
  const char* v = PQresultErrorField(r, code);
  return v ? v : "";
}

// The cancel handle of the newest open connection, and whether Ctrl-C came.
std::atomic<PGcancel*> current_cancel{nullptr};
volatile sig_atomic_t interrupt_count = 0;
volatile sig_atomic_t interrupt_signal = SIGINT;

void write_stderr(const char* text) {
  const ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void) ignored;
}

// What the CLI says when `signal` came, cancelling the server's statement or
// not: Ctrl-C is SIGINT's; a kill (SIGTERM) or a hangup (SIGHUP) is named as
// itself (they said "Ctrl-C" too). Constant strings: async-signal-safe.
const char* interrupt_message(int signal, bool cancelling) {
  switch (signal) {
    case SIGTERM:
      return cancelling ? "\ndptrain: interrupted by SIGTERM: cancelling the server's statement (a second signal "
                          "quits at once)\n"
                        : "\ndptrain: interrupted by SIGTERM (a second signal quits at once)\n";
    case SIGHUP:
      return cancelling ? "\ndptrain: interrupted by SIGHUP: cancelling the server's statement (a second signal "
                          "quits at once)\n"
                        : "\ndptrain: interrupted by SIGHUP (a second signal quits at once)\n";
    default:
      return cancelling ? "\ndptrain: interrupted: cancelling the server's statement (Ctrl-C again to quit at once)\n"
                        : "\ndptrain: interrupted (Ctrl-C again to quit at once)\n";
  }
}

// Async-signal-safe: PQcancel and write(2) only.
void on_sigint(int signal) {
  if (interrupt_count == 0) interrupt_signal = signal;
  if (++interrupt_count > 1) _exit(128 + interrupt_signal);
  PGcancel* cancel = current_cancel.load();
  char error[256];
  write_stderr(interrupt_message(signal, cancel != nullptr && PQcancel(cancel, error, sizeof(error))));
}

void catch_sigint() {
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: libpq's wait returns and reads the server's answer
  // A signal the CLI was started with ignored stays ignored: `nohup dptrain
  // train ...` must survive the hangup, and `trap '' INT` means what it says.
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction inherited {};
    if (sigaction(signal, nullptr, &inherited) == 0 && inherited.sa_handler == SIG_IGN) continue;
    sigaction(signal, &action, nullptr);
  }
}

// PQconnectdbParams with the user's conninfo expanded, after a default
// connect_timeout: a setting of the user's (later in the list) wins.
PGconn* connect_for_report(const std::string& conninfo) {
  const char* keys[] = {"connect_timeout", "dbname", nullptr};
  const char* values[] = {"10", conninfo.c_str(), nullptr};
  return PQconnectdbParams(keys, values, /*expand_dbname=*/1);
}

// A statement whose connection was lost (its backend terminated, the server
// stopped or crashed). libpq gives such a result no fields, only its text:
// the server's FATAL line, the CONTEXT of the internal statement the backend
// was in (hundreds of characters of dp_train's SQL) and libpq's own three
// lines, which the CLI printed whole after "dptrain: error: ". Now one line
// with the server's reason, when it gave one, and as DETAIL its context but
// the statement (dp_train's "this run's privacy charge ... stands").
PgError connection_lost(const std::string& text) {
  std::string reason = "the server closed the connection unexpectedly", detail;
  const std::size_t fatal = text.find("FATAL:  ");
  if (fatal == std::string::npos) return PgError("lost the connection to the server: " + reason, "08006");
  const std::size_t from = fatal + std::strlen("FATAL:  "), end = std::min(text.find('\n', from), text.size());
  reason = text.substr(from, end - from);
  std::istringstream lines(text.substr(end));
  for (std::string line; std::getline(lines, line);) {
    if (line == "server closed the connection unexpectedly") break;  // libpq's own lines from here
    if (line.rfind("CONTEXT:  ", 0) == 0) line.erase(0, std::strlen("CONTEXT:  "));
    if (!line.empty() && line.rfind("SQL statement \"", 0) != 0) detail += (detail.empty() ? "" : "\n") + line;
  }
  return PgError("lost the connection to the server: " + reason, "08006", detail);
}

}  // namespace

// libpq's text for a failed connection: a line per address tried
// ("connection to server at "localhost" (::1), port 5999 failed: Connection
// refused"), each with a tab-indented question ("\tIs the server running on
// that host ...?"). The CLI printed it whole, the SQLSTATE on the last line,
// and the failure note after a lost run quoted it inside a sentence.
PgError connection_failure(const std::string& text) {
  std::string message, hint;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const bool question = !line.empty() && line[0] == '\t';
    line.erase(0, line.find_first_not_of(" \t"));
    if (line.empty()) continue;
    std::string& into = question ? hint : message;
    if (into.find(line) == std::string::npos) into += (into.empty() ? "" : "; ") + line;
  }
  return PgError("could not connect to the database: " + message, "08001", {}, hint);
}

bool interrupted() { return interrupt_count > 0; }
int interrupt_exit_code() { return 128 + interrupt_signal; }

int PgResult::column(const std::string& name) const {
  const int c = PQfnumber(r_.get(), name.c_str());
  if (c < 0) throw PgError("result has no column \"" + name + "\"");
  return c;
}

PgConnection::PgConnection(const std::string& conninfo, Purpose purpose) : purpose_(purpose) {
  c_ = purpose == Purpose::kReport ? connect_for_report(conninfo) : PQconnectdb(conninfo.c_str());
  if (PQstatus(c_) != CONNECTION_OK) {
    const std::string msg = PQerrorMessage(c_);
    PQfinish(c_);
    c_ = nullptr;
    throw connection_failure(msg);
  }
  on_notice = [](const std::string& sev, const std::string& msg) {
    std::cerr << sev << ":  " << msg << "\n";
  };
  PQsetNoticeReceiver(c_, notice_receiver, this);
  if (purpose == Purpose::kRun) {
    cancel_ = PQgetCancel(c_);
    current_cancel.store(cancel_);
    catch_sigint();
  }
  PgResult path = exec("SELECT pg_catalog.current_setting('search_path'), "
                       "pg_catalog.quote_ident(pg_catalog.current_schema())");
  user_search_path_ = path.get(0, 0);
  creation_schema_ = path.get_opt(0, 1);
  exec("SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)");
}

std::string PgConnection::resolve_relation(const std::string& name) {
  exec("SELECT pg_catalog.set_config('search_path', $1, false)", {user_search_path_});
  auto pin = [this] { exec("SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)"); };
  std::optional<PgResult> lookup;
  try {
    lookup = exec("SELECT pg_catalog.to_regclass($1)::pg_catalog.oid", {name});
  } catch (const PgError& e) {
    pin();
    // to_regclass returns NULL for a missing table but raises on bad syntax
    // ('Mixed Case' unquoted): say how to quote, as dptrain load does.
    if (e.sqlstate != "42602") throw;
    throw PgError(e.what(), e.sqlstate, "\"" + name + "\" is not a valid SQL table name.",
                  kQuoteTableNameHint);
  }
  pin();
  const PgResult& found = *lookup;
  if (found.is_null(0, 0)) return name;
  return exec("SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) FROM pg_catalog.pg_class c "
              "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1::pg_catalog.oid",
              {found.get(0, 0)})
      .get(0, 0);
}

std::string PgConnection::creation_schema() const {
  if (!creation_schema_)
    throw PgError("no schema to create the table in", "3F000", {},
                  "Name the table with its schema (--table schema.name), or set search_path.");
  return *creation_schema_;
}

PgConnection::~PgConnection() {
  PGcancel* mine = cancel_;
  current_cancel.compare_exchange_strong(mine, nullptr);
  if (cancel_) PQfreeCancel(cancel_);
  if (c_) PQfinish(c_);
}

// After Ctrl-C nothing new starts; a ROLLBACK still may (it ends the run).
void PgConnection::refuse_if_interrupted(const std::string& sql) const {
  if (interrupted() && purpose_ == Purpose::kRun && sql != "ROLLBACK")
    throw PgError("canceling statement due to user request", "57014");
}

PgResult PgConnection::check(PGresult* r) {
  const auto status = PQresultStatus(r);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN) return PgResult(r);
  PgResult owned(r);
  std::string msg = field(r, PG_DIAG_MESSAGE_PRIMARY);
  if (msg.empty() && PQstatus(c_) == CONNECTION_BAD) throw connection_lost(PQerrorMessage(c_));
  if (msg.empty()) {
    msg = PQerrorMessage(c_);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  }
  throw PgError(msg, field(r, PG_DIAG_SQLSTATE), field(r, PG_DIAG_MESSAGE_DETAIL), field(r, PG_DIAG_MESSAGE_HINT));
}

PgResult PgConnection::exec(const std::string& sql) {
  refuse_if_interrupted(sql);
  return check(PQexec(c_, sql.c_str()));
}

PgResult PgConnection::exec(const std::string& sql, const std::vector<Param>& params) {
  refuse_if_interrupted(sql);
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  return check(PQexecParams(c_, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(), nullptr,
                            nullptr, 0));
}

std::vector<double> PgConnection::exec_float8_array(const std::string& sql, const std::vector<Param>& params,
                                                   const std::vector<double>& array, const std::string& what) {
  refuse_if_interrupted(sql);
  const std::string bytes = float8_array_to_binary(array.data(), array.size());
  const int n = static_cast<int>(params.size()) + 1;
  std::vector<Oid> types(n, 0);  // 0: the server infers the text parameters' types
  std::vector<const char*> values;
  std::vector<int> lengths(n, 0), formats(n, 0);
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  values.push_back(bytes.data());
  types.back() = kFloat8ArrayOid;
  lengths.back() = static_cast<int>(bytes.size());
  formats.back() = 1;
  PgResult r = check(PQexecParams(c_, sql.c_str(), n, types.data(), values.data(), lengths.data(), formats.data(), 1));
  if (r.rows() != 1 || r.is_null(0, 0)) throw PgError("the " + what + " returned nothing");
  if (PQftype(r.raw(), 0) != kFloat8ArrayOid) throw PgError("the " + what + " did not return a float8[] value");
  return float8_array_from_binary(PQgetvalue(r.raw(), 0, 0), static_cast<std::size_t>(PQgetlength(r.raw(), 0, 0)));
}

void PgConnection::copy_in(const std::string& copy_sql, const std::function<bool(std::string&)>& produce) {
  refuse_if_interrupted(copy_sql);
  PgResult start = check(PQexec(c_, copy_sql.c_str()));
  if (PQresultStatus(start.raw()) != PGRES_COPY_IN) throw PgError("COPY did not start");
  std::string chunk;
  bool more = true;
  try {
    while (more) {
      // After Ctrl-C / SIGTERM the server has cancelled the COPY: stop
      // producing rows (the rest of a large file took seconds to send for
      // nothing) and abort it below.
      refuse_if_interrupted(copy_sql);
      chunk.clear();
      more = produce(chunk);
      if (!chunk.empty() && PQputCopyData(c_, chunk.data(), static_cast<int>(chunk.size())) != 1)
        throw copy_failed();
    }
  } catch (...) {
    // Abort the COPY so that the connection can still roll back.
    PQputCopyEnd(c_, "aborted by the client");
    while (PGresult* r = PQgetResult(c_)) PQclear(r);
    throw;
  }
  if (PQputCopyEnd(c_, nullptr) != 1) throw copy_failed();
  check(PQgetResult(c_));
  while (PGresult* r = PQgetResult(c_)) PQclear(r);
}

PgError PgConnection::copy_failed() const {
  if (PQstatus(c_) == CONNECTION_BAD) return connection_lost(PQerrorMessage(c_));
  return PgError(std::string("COPY failed: ") + PQerrorMessage(c_));
}

std::string PgConnection::quote_ident(const std::string& s) const {
  char* q = PQescapeIdentifier(c_, s.c_str(), s.size());
  if (!q) throw PgError(PQerrorMessage(c_));
  std::string out(q);
  PQfreemem(q);
  return out;
}

std::string PgConnection::quote_literal(const std::string& s) const {
  char* q = PQescapeLiteral(c_, s.c_str(), s.size());
  if (!q) throw PgError(PQerrorMessage(c_));
  std::string out(q);
  PQfreemem(q);
  return out;
}

std::string to_array_literal(const double* v, std::size_t n) {
  std::string s;
  s.reserve(n * 12 + 2);
  s += '{';
  char buf[32];
  for (std::size_t i = 0; i < n; ++i) {
    if (i) s += ',';
    auto res = std::to_chars(buf, buf + sizeof(buf), v[i]);
    s.append(buf, res.ptr);
  }
  s += '}';
  return s;
}

std::vector<double> parse_float_array(const std::string& text) {
  std::vector<double> out;
  // Braces of any nesting depth are separators: a K x d array parses row-major.
  const char* p = text.c_str();
  while (*p) {
    if (*p == '{' || *p == ',' || *p == '}' || *p == ' ') {
      ++p;
      continue;
    }
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p) throw PgError("cannot parse float8[] value: " + text.substr(0, 60));
    out.push_back(v);
    p = end;
  }
  return out;
}

}  // namespace dptrain::client
