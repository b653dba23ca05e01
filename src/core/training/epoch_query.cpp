#include "core/training/epoch_query.h"

namespace dptrain {

std::string epoch_sql(const TrainingPlan& plan, const std::string& table, std::int64_t rows) {
  if (!plan.epoch.sampled_batches) return "SELECT dptrain.sgd_epoch(x, y, $1::float8[]) FROM " + table;
  // The SRF in the select list streams its rows (value-per-call) into the
  // aggregate, in the order it produces them.
  return "SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1::float8[]) "
         "FROM (SELECT dptrain.sampled_rows($1::float8[], '" + table + "'::regclass, " + std::to_string(rows) +
         ") AS r) s";
}

}  // namespace dptrain
