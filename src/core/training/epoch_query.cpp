#include "core/training/epoch_query.h"

#include <cmath>

#include "core/error.h"

namespace dptrain {

std::string epoch_sql(const TrainingPlan& plan, const std::string& table, std::int64_t rows) {
  if (!plan.epoch.sampled_batches) return "SELECT dptrain.sgd_epoch(x, y, $1::float8[]) FROM " + table;
  // The SRF in the select list streams its rows (value-per-call) into the
  // aggregate, in the order it produces them.
  return "SELECT dptrain.sgd_sampled_epoch((r).x, (r).y, (r).batch, $1::float8[]) "
         "FROM (SELECT dptrain.sampled_rows($1::float8[], '" + table + "'::regclass, " + std::to_string(rows) +
         ") AS r) s";
}

std::string training_loss_sql(const std::string& table) {
  return "SELECT dptrain.evaluate_agg(x, y::int, $1::float8[]) FROM " + table;
}

double mean_training_loss(const double* totals, std::size_t len) {
  if (totals == nullptr || len != 3 || !(totals[0] >= 1) || !std::isfinite(totals[2]))
    fail(ErrorKind::Internal, "malformed training-loss result");
  return totals[2] / totals[0];
}

}  // namespace dptrain
