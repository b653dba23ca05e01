#include "extension.h"

namespace dptrain::client {

std::string api_schema(PgConnection& conn) {
  PgResult r = conn.exec("SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n "
                         "ON n.oid = e.extnamespace WHERE e.extname = 'dptrain'");
  if (r.rows() == 0)
    throw PgError("the dptrain extension is not installed in this database", "42704", {},
                  "Run CREATE EXTENSION dptrain; (after make install).");
  return r.get(0, 0);
}

}  // namespace dptrain::client
