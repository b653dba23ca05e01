#include "extension.h"

#include <cstdio>

namespace dptrain::client {
namespace {

// The oldest version of the extension whose SQL this CLI speaks. Against 0.1
// (dp_train without most named arguments, no models.private, another
// training_prepare) every command failed deep inside with "function ... does
// not exist" or "column m.private does not exist", which named no cause.
constexpr int kNeededMajor = 0, kNeededMinor = 2;
constexpr const char* kNeeded = "0.2";

bool older_than_needed(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return false;  // unknown: let it try
  return major < kNeededMajor || (major == kNeededMajor && minor < kNeededMinor);
}

}  // namespace

std::string api_schema(PgConnection& conn) {
  PgResult r = conn.exec("SELECT quote_ident(n.nspname), e.extversion FROM pg_extension e JOIN pg_namespace n "
                         "ON n.oid = e.extnamespace WHERE e.extname = 'dptrain'");
  if (r.rows() == 0)
    throw PgError("the dptrain extension is not installed in this database", "42704", {},
                  "Run CREATE EXTENSION dptrain; (after make install).");
  const std::string version = r.get(0, 1);
  if (older_than_needed(version))
    throw PgError("the dptrain extension in this database is version " + version + "; this dptrain needs " +
                      kNeeded + " or later",
                  "55000", {},
                  "Update it in place: ALTER EXTENSION dptrain UPDATE; (after make install; models, budgets and "
                  "the ledger are kept: README.md, \"Versions and updates\").");
  return r.get(0, 0);
}

}  // namespace dptrain::client
