#include "core/engine/pass.h"

#include "core/error.h"

namespace dptrain {
namespace {

// A SQL string literal ('' doubles a quote; the engine's table names never
// contain one, but a literal is a literal).
std::string literal(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// GroupedRows (see pass.h). Every name is schema-qualified and operators are
// spelled OPERATOR(pg_catalog.op): the statement is safe under any search_path.
std::string grouped_rows_sql(const std::string& table) {
  // x::float8[]: a no-op on a dense prepared table, the dense row of a
  // sparse one (dptrain.sparsevec's cast; docs/sparse.md).
  return "WITH d AS (SELECT t.x::pg_catalog.float8[] AS x, t.y FROM " + table + " t), "
         // A NULL element becomes -1 and a non-finite value NaN: neither is a
         // binarized value, so parse_groups refuses such rows as every other
         // pass does (an analyst's copy has replaced them already).
         "b AS (SELECT ARRAY(SELECT CASE WHEN u.v IS NULL THEN -1 "
         "WHEN u.v OPERATOR(pg_catalog.=) ANY ('{NaN,Infinity,-Infinity}'::pg_catalog.float8[]) THEN 'NaN'::pg_catalog.float8 "
         "WHEN u.v OPERATOR(pg_catalog.>=) 0.5 THEN 1 ELSE 0 END"
         "::pg_catalog.float8 FROM pg_catalog.unnest(t.x) WITH ORDINALITY u(v, k) ORDER BY u.k) AS bx, t.x, t.y "
         "FROM d t), "
         "g AS (SELECT b.bx, pg_catalog.count(*) FILTER (WHERE b.y OPERATOR(pg_catalog.=) 1) AS pos, "
         "pg_catalog.count(*) FILTER (WHERE b.y OPERATOR(pg_catalog.<>) 1) AS neg, "
         "pg_catalog.count(*) FILTER (WHERE b.bx OPERATOR(pg_catalog.<>) b.x) AS changed FROM b GROUP BY b.bx) "
         "SELECT pg_catalog.array_cat(ARRAY[(SELECT pg_catalog.count(*) FROM g)::pg_catalog.float8, "
         "(SELECT COALESCE(pg_catalog.sum(g.changed), 0) FROM g)::pg_catalog.float8], "
         "(SELECT COALESCE(pg_catalog.array_agg(e.v ORDER BY g.bx, e.k), '{}') FROM g, "
         "pg_catalog.unnest(pg_catalog.array_cat(g.bx, ARRAY[g.pos, g.neg]::pg_catalog.float8[])) "
         "WITH ORDINALITY e(v, k) "
         "WHERE (SELECT pg_catalog.count(*) FROM g) OPERATOR(pg_catalog.<=) ($1::pg_catalog.float8[])[1]))";
}

}  // namespace

const char* pass_kind_name(PassKind kind) {
  switch (kind) {
    case PassKind::SgdEpoch: return "sgd epoch";
    case PassKind::SampledEpoch: return "sampled epoch";
    case PassKind::GradientLoss: return "gradient/loss";
    case PassKind::Evaluate: return "evaluation";
    case PassKind::Reshuffle: return "reshuffle";
    case PassKind::Split: return "split";
    case PassKind::GroupedRows: return "grouped rows";
    case PassKind::PoissonLots: return "poisson lots";
  }
  return "unknown";
}

std::string part_table_name(const std::string& prepared, int part) {
  if (part < 1) fail(ErrorKind::Internal, "part numbers start at 1");
  return prepared + "_p" + std::to_string(part);
}

std::string pass_table_name(const Pass& pass, const std::string& prepared) {
  return pass.table == 0 ? prepared : part_table_name(prepared, pass.table);
}

std::string pass_sql(const Pass& pass, const std::string& table) {
  switch (pass.kind) {
    case PassKind::SgdEpoch:
      return "SELECT dptrain.sgd_epoch(x, y, $1::pg_catalog.float8[]) FROM " + table;
    case PassKind::SampledEpoch:
      // The whole epoch in one call: the same batches, in the same order,
      // as dptrain.sampled_rows streamed into dptrain.sgd_sampled_epoch
      // (src/pg/sampled_epoch.cpp), without the executor per row.
      return "SELECT dptrain.sampled_epoch($1::pg_catalog.float8[], " + literal(table) +
             "::pg_catalog.regclass, " + std::to_string(pass.rows) + ")";
    case PassKind::GradientLoss:
      return "SELECT dptrain.gradient_sum(x, y, $1::pg_catalog.float8[]) FROM " + table;
    case PassKind::Evaluate:
      return "SELECT dptrain.evaluate_agg(x, y::pg_catalog.int4, $1::pg_catalog.float8[]) FROM " + table;
    case PassKind::Reshuffle:
      // Returns its (empty) input: every pass yields one float8[].
      return "SELECT $1::pg_catalog.float8[] FROM dptrain.training_reshuffle(" + literal(table) + ")";
    case PassKind::Split:
      return "SELECT pg_catalog.array_cat($1::pg_catalog.float8[], "
             "pg_catalog.array_agg(s.rows::pg_catalog.float8 ORDER BY s.part)) "
             "FROM dptrain.training_split(" + literal(table) + ", " + std::to_string(pass.parts) + ") s";
    case PassKind::GroupedRows: return grouped_rows_sql(table);
    case PassKind::PoissonLots:
      // The whole pass in one call: the same lots, in the same order, as
      // dptrain.lot_rows streamed into dptrain.dpsgd_lots (src/pg/lots_pass.cpp).
      return "SELECT dptrain.lots_pass($1::pg_catalog.float8[], " + literal(table) + "::pg_catalog.regclass, " +
             std::to_string(pass.rows) + ")";
  }
  fail(ErrorKind::Internal, "unknown pass kind");
}

}  // namespace dptrain
