#include "core/training/in_memory.h"

#include "core/packed_model.h"
#include "core/training/epoch_query.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/sgd/batch_sampler.h"
#include "core/sgd/epoch_state.h"

namespace dptrain {

Model train_in_memory(TrainingConfig config, const InMemoryData& data, std::uint64_t shuffle_seed) {
  if (data.x.empty() || data.x.size() != data.y.size())
    fail(ErrorKind::InvalidData, "in-memory training needs rows with one label each");
  config.rows = data.rows();
  config.dim = data.dim();
  Trainer trainer(config);
  std::vector<std::int64_t> order(static_cast<std::size_t>(config.rows));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 shuffler(shuffle_seed);
  std::shuffle(order.begin(), order.end(), shuffler);  // training_prepare's ORDER BY random()
  return run_in_memory(trainer, data, std::move(order), &shuffler);
}

Model run_in_memory(Trainer& trainer, const InMemoryData& data, std::vector<std::int64_t> order,
                    std::mt19937_64* reshuffler) {
  const std::int64_t n = data.rows();
  if (n == 0 || data.x.size() != data.y.size())
    fail(ErrorKind::InvalidData, "in-memory training needs rows with one label each");
  if (trainer.config().rows != n || trainer.config().dim != data.dim())
    fail(ErrorKind::Internal, "run_in_memory: the Trainer was planned for other data");
  if (order.empty()) {
    order.resize(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), std::int64_t{0});
  }
  if (static_cast<std::int64_t>(order.size()) != n)
    fail(ErrorKind::Internal, "run_in_memory: the order is not a permutation of the rows");
  for (std::int64_t i : order)
    if (i < 0 || i >= n) fail(ErrorKind::Internal, "run_in_memory: row index out of range");
  if (trainer.plan().reshuffle && !trainer.plan().epoch.sampled_batches && reshuffler == nullptr)
    fail(ErrorKind::Internal, "run_in_memory: the plan reshuffles but no random generator was given");
  const std::int64_t b = trainer.config().batch_size;

  std::vector<std::int64_t> batch(static_cast<std::size_t>(b));
  for (int e = trainer.epochs_done() + 1; trainer.needs_epoch(); ++e) {
    std::vector<double> s = trainer.epoch_input();
    const int d = epoch_state::dim(s.data());
    if (trainer.plan().epoch.sampled_batches) {
      // As dptrain.sample_batches($1, n) joined to the rows by number.
      BatchSampler sampler(privacy::key_from_words(epoch_state::config_of(s.data()).noise_key),
                           epoch_state::updates(s.data()), n, b);
      const std::int64_t batches = batches_per_epoch(n, b);
      for (std::int64_t j = 1; j <= batches; ++j) {
        sampler.next(batch.data());
        for (std::int64_t row : batch) {
          const auto i = static_cast<std::size_t>(row - 1);
          epoch_state::add_sampled_row(s.data(), data.x[i].data(), d, data.y[i], j);
        }
      }
    } else {
      if (e > 1 && trainer.plan().reshuffle) std::shuffle(order.begin(), order.end(), *reshuffler);
      for (std::int64_t i : order) {
        const auto r = static_cast<std::size_t>(i);
        epoch_state::add_row(s.data(), data.x[r].data(), d, data.y[r]);
      }
    }
    epoch_state::flush(s.data());  // the final function
    trainer.epoch_output(s.data(), s.size());
    if (trainer.wants_training_loss()) {  // as training_loss_sql over the rows
      const std::vector<double> model = trainer.current_packed_model();
      double totals[3] = {0, 0, 0};
      for (std::int64_t i = 0; i < n; ++i) {
        const auto r = static_cast<std::size_t>(i);
        packed_model::accumulate(model.data(), data.x[r].data(), data.dim(), static_cast<int>(data.y[r]), totals);
      }
      trainer.training_loss(mean_training_loss(totals, 3));
    }
  }
  return trainer.finish(0.0);
}

}  // namespace dptrain
