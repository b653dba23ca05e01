#include "core/training/epoch_query.h"

namespace dptrain {

std::vector<std::string> epoch_setup_sql(const TrainingPlan& plan, const std::string& table) {
  if (!plan.epoch.sampled_batches) return {};
  // Rows are fetched by number: index the row-number column once.
  return {"SELECT dptrain.training_index('" + table + "')"};
}

std::string epoch_sql(const TrainingPlan& plan, const std::string& table, std::int64_t rows) {
  if (!plan.epoch.sampled_batches) return "SELECT dptrain.sgd_epoch(x, y, $1::float8[]) FROM " + table;
  return "SELECT dptrain.sgd_sampled_epoch(d.x, d.y, s.batch, $1::float8[]) "
         "FROM dptrain.sample_batches($1::float8[], " + std::to_string(rows) + ") s "
         "CROSS JOIN LATERAL (SELECT t.x, t.y FROM " + table + " t WHERE t.i = s.row OFFSET 0) d";
}

}  // namespace dptrain
