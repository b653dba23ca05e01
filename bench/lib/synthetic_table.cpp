#include "synthetic_table.h"

#include <iostream>

namespace dptrain::bench {

std::string ensure_synthetic_table(client::PgConnection& c, const std::string& name, long rows, int dim) {
  const std::string table = "public." + c.quote_ident(name);
  client::PgResult exists =
      c.exec("SELECT count(*) FROM pg_class WHERE relname = $1 AND relnamespace = 'public'::regnamespace", {name});
  if (exists.get(0, 0) != "0") {
    client::PgResult shape = c.exec("SELECT count(*), max(cardinality(x)) FROM " + table);
    if (std::stol(shape.get(0, 0)) == rows && !shape.is_null(0, 1) && std::stoi(shape.get(0, 1)) == dim) return table;
    c.exec("DROP TABLE " + table);
  }
  std::cerr << "creating " << rows << " x " << dim << " synthetic rows (" << name << ")...\n";
  c.exec("SELECT setseed(0.42)");
  // Entries uniform on [-sqrt(3/d), sqrt(3/d)]: E||x||^2 = 1 (training clips
  // the rare longer rows). The inner ARRAY must depend on i, or it is
  // evaluated once.
  c.exec("CREATE TABLE " + table + " AS SELECT i AS id, x, (x[1] + x[2] - x[3] > 0) AS y FROM ("
         "SELECT i, ARRAY(SELECT (2 * random() - 1) / sqrt($1::float8 / 3) FROM generate_series(1, $1::int + 0 * i)) "
         "AS x FROM generate_series(1, $2::bigint) i) s",
         {std::to_string(dim), std::to_string(rows)});
  c.exec("VACUUM ANALYZE " + table);
  return table;
}

}  // namespace dptrain::bench
