#include "core/training/in_memory.h"

#include <numeric>
#include <string>

#include "core/error.h"
#include "core/sgd/epoch_state.h"

namespace dptrain {

void InMemoryTable::add(const std::vector<double>& x, double label) {
  if (static_cast<int>(x.size()) != dim)
    fail(ErrorKind::InvalidData, "feature arrays have different lengths",
         "A row has " + std::to_string(x.size()) + " features, the table has " + std::to_string(dim) + ".");
  features.insert(features.end(), x.begin(), x.end());
  labels.push_back(label);
}

void describe_table(const InMemoryTable& table, TrainingConfig& config) {
  config.rows = table.rows();
  config.dim = table.dim;
}

void shuffle(std::vector<std::int64_t>& order, privacy::RandomSource& rng) {
  for (std::size_t i = order.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.uniform_below(i));
    std::swap(order[i - 1], order[j]);
  }
}

Model train_in_memory(Trainer& trainer, const InMemoryTable& table, std::vector<std::int64_t> order,
                      privacy::RandomSource* reshuffle_rng) {
  const std::int64_t m = table.rows();
  if (order.empty()) {
    order.resize(static_cast<std::size_t>(m));
    std::iota(order.begin(), order.end(), std::int64_t{0});
  }
  if (static_cast<std::int64_t>(order.size()) != m)
    fail(ErrorKind::Internal, "train_in_memory: the order is not a permutation of the rows");
  if (trainer.plan().reshuffle && reshuffle_rng == nullptr)
    fail(ErrorKind::Internal, "train_in_memory: the plan reshuffles but no random source was given");
  for (int e = trainer.epochs_done(); e < trainer.epochs(); ++e) {
    if (e > 0 && trainer.plan().reshuffle) shuffle(order, *reshuffle_rng);
    std::vector<double> state = trainer.epoch_input();
    for (std::int64_t i : order) {
      if (i < 0 || i >= m) fail(ErrorKind::Internal, "train_in_memory: row index out of range");
      epoch_state::add_row(state.data(), table.row(i), table.dim, table.labels[static_cast<std::size_t>(i)]);
    }
    epoch_state::flush(state.data());
    trainer.epoch_output(state.data(), state.size());
  }
  return trainer.finish(0.0);
}

}  // namespace dptrain
