#include "pg_connection.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>

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

}  // namespace

int PgResult::column(const std::string& name) const {
  const int c = PQfnumber(r_.get(), name.c_str());
  if (c < 0) throw PgError("result has no column \"" + name + "\"");
  return c;
}

PgConnection::PgConnection(const std::string& conninfo) {
  c_ = PQconnectdb(conninfo.c_str());
  if (PQstatus(c_) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(c_);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    PQfinish(c_);
    c_ = nullptr;
    throw PgError("could not connect to the database: " + msg, "08001");
  }
  on_notice = [](const std::string& sev, const std::string& msg) {
    std::cerr << sev << ":  " << msg << "\n";
  };
  PQsetNoticeReceiver(c_, notice_receiver, this);
}

PgConnection::~PgConnection() {
  if (c_) PQfinish(c_);
}

PgResult PgConnection::check(PGresult* r) {
  const auto status = PQresultStatus(r);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN) return PgResult(r);
  PgResult owned(r);
  std::string msg = field(r, PG_DIAG_MESSAGE_PRIMARY);
  if (msg.empty()) {
    msg = PQerrorMessage(c_);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  }
  throw PgError(msg, field(r, PG_DIAG_SQLSTATE), field(r, PG_DIAG_MESSAGE_DETAIL), field(r, PG_DIAG_MESSAGE_HINT));
}

PgResult PgConnection::exec(const std::string& sql) { return check(PQexec(c_, sql.c_str())); }

PgResult PgConnection::exec(const std::string& sql, const std::vector<Param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  return check(PQexecParams(c_, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(), nullptr,
                            nullptr, 0));
}

void PgConnection::copy_in(const std::string& copy_sql, const std::function<bool(std::string&)>& produce) {
  PgResult start = check(PQexec(c_, copy_sql.c_str()));
  if (PQresultStatus(start.raw()) != PGRES_COPY_IN) throw PgError("COPY did not start");
  std::string chunk;
  bool more = true;
  try {
    while (more) {
      chunk.clear();
      more = produce(chunk);
      if (!chunk.empty() && PQputCopyData(c_, chunk.data(), static_cast<int>(chunk.size())) != 1)
        throw PgError(std::string("COPY failed: ") + PQerrorMessage(c_));
    }
  } catch (...) {
    // Abort the COPY so that the connection can still roll back.
    PQputCopyEnd(c_, "aborted by the client");
    while (PGresult* r = PQgetResult(c_)) PQclear(r);
    throw;
  }
  if (PQputCopyEnd(c_, nullptr) != 1) throw PgError(std::string("COPY failed: ") + PQerrorMessage(c_));
  check(PQgetResult(c_));
  while (PGresult* r = PQgetResult(c_)) PQclear(r);
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
