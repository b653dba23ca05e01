#include "core/sgd/sharded_epoch.h"

#include "core/error.h"

namespace dptrain::epoch_state {

std::vector<double> sharded_epoch(const std::vector<double>& start, const ShardedRows& rows,
                                  const std::vector<std::vector<int>>& streams) {
  if (!rows.x || !rows.y || rows.x->size() != rows.y->size())
    fail(ErrorKind::Internal, "sharded_epoch needs rows and labels of the same length");
  validate(start.data(), start.size());
  // The coordinator's combine starts from the first partial state it gets;
  // an empty shard's state (no rows) is the identity of the combine.
  std::vector<double> combined;
  for (const std::vector<int>& stream : streams) {
    std::vector<double> partial = start;
    for (int i : stream) {
      const std::vector<double>& x = rows.x->at(i);
      add_row(partial.data(), x.data(), static_cast<std::int64_t>(x.size()), rows.y->at(i));
    }
    if (combined.empty())
      combined = std::move(partial);
    else
      combine(combined.data(), combined.size(), partial.data(), partial.size());
  }
  if (combined.empty()) combined = start;
  flush(combined.data());
  return combined;
}

}  // namespace dptrain::epoch_state
