// Errors raised by the core. The PostgreSQL glue maps ErrorKind to an
// SQLSTATE and reports message/detail/hint with ereport(); the CLI prints them.
#pragma once

#include <stdexcept>
#include <string>

namespace dptrain {

enum class ErrorKind {
  InvalidParameter,   // a user argument is out of range (22023)
  InvalidData,        // a row is unusable: NULL, NaN/Inf, ragged, bad label (22000 family)
  NotImplemented,     // a known name whose implementation is not there yet (0A000)
  InvalidState,       // a malformed aggregate state or model (XX000-like, data corrupted)
  ProgramLimit,       // dimension/size beyond what we allow (54000)
  Internal,           // a bug
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, std::string detail = {}, std::string hint = {},
        std::string sqlstate = {})
      : std::runtime_error(std::move(message)), kind_(kind), detail_(std::move(detail)),
        hint_(std::move(hint)), sqlstate_(std::move(sqlstate)) {}

  ErrorKind kind() const { return kind_; }
  const std::string& detail() const { return detail_; }
  const std::string& hint() const { return hint_; }
  // A more specific SQLSTATE than the kind's default (5 characters), or empty.
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  ErrorKind kind_;
  std::string detail_;
  std::string hint_;
  std::string sqlstate_;
};

// SQLSTATEs the core names explicitly (it knows no PostgreSQL headers).
namespace sqlstate {
inline constexpr const char* kNullValueNotAllowed = "22004";
inline constexpr const char* kArraySubscriptError = "2202E";
inline constexpr const char* kFloatingPointException = "22P01";
// A table changed between the count of a run (before its charge) and a pass.
// A class of our own (as DP001, DP002: docs/governance.md), not 40001: many
// clients and poolers retry serialization failures by themselves, and each
// retry of a charged run would be charged again.
inline constexpr const char* kTableChanged = "DP003";
}  // namespace sqlstate

// The SQLSTATE an error is reported with: its own, else its kind's (ErrorKind's
// comments). The backend (src/pg/pg_glue.cpp) and the CLI print the same one.
inline std::string sqlstate_of(const Error& e) {
  if (e.sqlstate().size() == 5) return e.sqlstate();
  switch (e.kind()) {
    case ErrorKind::InvalidParameter: return "22023";
    case ErrorKind::InvalidData: return "22000";
    case ErrorKind::NotImplemented: return "0A000";
    case ErrorKind::InvalidState: return "22023";
    case ErrorKind::ProgramLimit: return "54000";
    case ErrorKind::Internal: return "XX000";
  }
  return "XX000";
}

[[noreturn]] inline void fail(ErrorKind kind, std::string message, std::string detail = {},
                              std::string hint = {}) {
  throw Error(kind, std::move(message), std::move(detail), std::move(hint));
}

}  // namespace dptrain
