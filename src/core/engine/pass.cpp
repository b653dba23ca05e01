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

}  // namespace

const char* pass_kind_name(PassKind kind) {
  switch (kind) {
    case PassKind::SgdEpoch: return "sgd epoch";
    case PassKind::SampledEpoch: return "sampled epoch";
    case PassKind::GradientLoss: return "gradient/loss";
    case PassKind::Evaluate: return "evaluation";
    case PassKind::Reshuffle: return "reshuffle";
    case PassKind::Split: return "split";
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
      // The set-returning function in the select list streams its rows
      // (value-per-call) into the aggregate, in the order it produces them.
      return "SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1::pg_catalog.float8[]) "
             "FROM (SELECT dptrain.sampled_rows($1::pg_catalog.float8[], " + literal(table) +
             "::pg_catalog.regclass, " + std::to_string(pass.rows) + ") AS r) s";
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
    case PassKind::PoissonLots:
      // As SampledEpoch: value-per-call rows in lot order, then one marker
      // row (x, y NULL) so that the aggregate ends every lot even if all are empty.
      return "SELECT dptrain.dpsgd_lots((r).x, (r).y, (r).lot, $1::pg_catalog.float8[]) "
             "FROM (SELECT dptrain.lot_rows($1::pg_catalog.float8[], " + literal(table) +
             "::pg_catalog.regclass, " + std::to_string(pass.rows) + ") AS r) s";
  }
  fail(ErrorKind::Internal, "unknown pass kind");
}

}  // namespace dptrain
