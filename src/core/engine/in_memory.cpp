#include "core/engine/in_memory.h"

#include "core/training/intercept.h"

#include <algorithm>
#include <numeric>

#include "core/algorithms/opdisc_groups.h"
#include "core/dpsgd/lot_state.h"
#include "core/dpsgd/poisson_lots.h"
#include "core/engine/gradient_state.h"
#include "core/error.h"
#include "core/evaluation/metrics.h"
#include "core/packed_model.h"
#include "core/sgd/batch_sampler.h"
#include "core/sgd/epoch_state.h"
#include "core/sgd/sharded_epoch.h"
#include "core/sgd/shuffle_key.h"

namespace dptrain {
namespace {

// A prepared table: data indices in physical order, and by row number.
struct Table {
  std::vector<std::int64_t> order;
  std::vector<std::int64_t> numbered;
};

class InMemoryDriver {
 public:
  InMemoryDriver(const InMemoryData& data, std::vector<std::int64_t> order, std::mt19937_64* reshuffler)
      : data_(data), reshuffler_(reshuffler) {
    Table t;
    t.numbered.resize(static_cast<std::size_t>(data.rows()));
    std::iota(t.numbered.begin(), t.numbered.end(), std::int64_t{0});
    t.order = order.empty() ? t.numbered : std::move(order);
    tables_.push_back(std::move(t));
  }

  std::vector<double> execute(const Pass& p) {
    if (!p.split_key.empty()) return execute_on_keyed_part(p);
    if (p.table < 0 || p.table >= static_cast<int>(tables_.size()))
      fail(ErrorKind::Internal, "in-memory driver: no such table");
    Table& t = tables_[static_cast<std::size_t>(p.table)];
    switch (p.kind) {
      case PassKind::SgdEpoch: return p.shuffle_key.empty() ? sgd_epoch(p.input, t) : sharded_sgd_epoch(p);
      case PassKind::SampledEpoch: return sampled_epoch(p.input, t);
      case PassKind::GradientLoss: return gradient_loss(p.input, t);
      case PassKind::Evaluate: return evaluate(p.input, t);
      case PassKind::Reshuffle:
        if (reshuffler_ == nullptr) fail(ErrorKind::Internal, "in-memory driver: a reshuffle without a generator");
        std::shuffle(t.order.begin(), t.order.end(), *reshuffler_);
        return p.input;
      case PassKind::Split: return split(p.parts);
      case PassKind::GroupedRows: return grouped_rows(p.input, t);
      case PassKind::PoissonLots: return poisson_lots(p.input, t, p.rows);
    }
    fail(ErrorKind::Internal, "in-memory driver: unknown pass kind");
  }

 private:
  const double* x(std::int64_t i) const { return data_.x[static_cast<std::size_t>(i)].data(); }
  double y(std::int64_t i) const { return data_.y[static_cast<std::size_t>(i)]; }

  std::vector<double> sgd_epoch(std::vector<double> s, const Table& t) const {
    const int d = epoch_state::dim(s.data());
    for (std::int64_t i : t.order) epoch_state::add_row(s.data(), x(i), d, y(i));
    epoch_state::flush(s.data());  // the final function
    return s;
  }

  // A pass over a part of a keyed split (private tuning on a distributed
  // table): as engine/distributed.h's filter, the rows whose key (the row's
  // index) hashes to the part, where they are; no Split made a table.
  std::vector<double> execute_on_keyed_part(const Pass& p) const {
    if (data_.shard.size() != data_.x.size()) fail(ErrorKind::Internal, "in-memory driver: a keyed split of a plain table");
    const sgd::SplitKey key = sgd::epoch_key_from_words(p.split_key.data(), p.split_key.size());
    std::vector<char> in(data_.x.size(), 0);
    Table t;
    for (std::int64_t i : tables_[0].order)
      if (sgd::tuning_part(i, key, p.parts) == p.table) {
        in[static_cast<std::size_t>(i)] = 1;
        t.order.push_back(i);
      }
    t.numbered = t.order;
    switch (p.kind) {
      case PassKind::SgdEpoch: return sharded_sgd_epoch(p, &in);
      case PassKind::GradientLoss: return gradient_loss(p.input, t);
      case PassKind::Evaluate: return evaluate(p.input, t);
      default: break;
    }
    fail(ErrorKind::Internal, "in-memory driver: a pass kind that does not run on a part of a distributed table");
  }

  // As the pushed-down epoch of engine/distributed.h: every shard streams
  // its rows (of `only`, if given) ordered by shuffle_key(row key, epoch key),
  // P times over, into its own partial state; the states are combined (n_s/n averaging).
  std::vector<double> sharded_sgd_epoch(const Pass& p, const std::vector<char>* only = nullptr) const {
    if (data_.shard.size() != data_.x.size()) fail(ErrorKind::Internal, "in-memory driver: a distributed epoch on a plain table");
    const sgd::EpochShuffleKey key = sgd::epoch_key_from_words(p.shuffle_key.data(), p.shuffle_key.size());
    const int shards = *std::max_element(data_.shard.begin(), data_.shard.end()) + 1;
    std::vector<std::vector<int>> rows(static_cast<std::size_t>(shards));
    for (std::size_t i = 0; i < data_.shard.size(); ++i)
      if (only == nullptr || (*only)[i]) rows[static_cast<std::size_t>(data_.shard[i])].push_back(static_cast<int>(i));
    std::vector<std::vector<int>> streams;
    for (std::vector<int>& r : rows) {
      std::sort(r.begin(), r.end(), [&](int a, int b) { return sgd::shuffle_key(a, key) < sgd::shuffle_key(b, key); });
      std::vector<int> stream;
      for (int pass = 0; pass < p.local_passes; ++pass) stream.insert(stream.end(), r.begin(), r.end());
      streams.push_back(std::move(stream));
    }
    return epoch_state::sharded_epoch(p.input, {&data_.x, &data_.y}, streams);
  }

  // As dptrain.sampled_rows: batches of row numbers from the state's key.
  std::vector<double> sampled_epoch(std::vector<double> s, const Table& t) const {
    const int d = epoch_state::dim(s.data());
    const auto n = static_cast<std::int64_t>(t.numbered.size());
    const std::int64_t b = static_cast<std::int64_t>(epoch_state::config_of(s.data()).batch_size);
    BatchSampler sampler(privacy::key_from_words(epoch_state::config_of(s.data()).noise_key),
                         epoch_state::updates(s.data()), n, b);
    std::vector<std::int64_t> batch(static_cast<std::size_t>(b));
    const std::int64_t batches = batches_per_epoch(n, b);
    for (std::int64_t j = 1; j <= batches; ++j) {
      sampler.next(batch.data());
      for (std::int64_t row : batch) {
        const std::int64_t i = t.numbered[static_cast<std::size_t>(row - 1)];
        epoch_state::add_sampled_row(s.data(), x(i), d, y(i), j);
      }
    }
    epoch_state::flush(s.data());
    return s;
  }

  // As dptrain.lot_rows into dptrain.dpsgd_lots: the lots current .. last of
  // the state, drawn from its key by row number, rows in lot order, then finish.
  std::vector<double> poisson_lots(std::vector<double> s, const Table& t, std::int64_t rows) const {
    namespace ls = dpsgd::lot_state;
    ls::validate(s.data(), s.size());
    const auto n = static_cast<std::int64_t>(t.numbered.size());
    if (rows != n || ls::rows(s.data()) != n || ls::dim(s.data()) != data_.dim())
      fail(ErrorKind::Internal, "in-memory driver: the lot state does not match the table");
    dpsgd::PoissonLots lots(ls::key(s.data()), n, ls::sampling_rate(s.data()));
    const std::uint64_t last = ls::last_lot(s.data());
    for (std::uint64_t lot = ls::current_lot(s.data()); lot <= last; ++lot)
      for (std::int64_t row : lots.lot(lot)) {
        const std::int64_t i = t.numbered[static_cast<std::size_t>(row - 1)];
        ls::add_row(s.data(), x(i), static_cast<int>(y(i)), lot);
      }
    ls::finish(s.data());
    return s;
  }

  std::vector<double> gradient_loss(std::vector<double> s, const Table& t) const {
    gradient_state::validate(s.data(), s.size());
    const int d = gradient_state::dim(s.data());
    for (std::int64_t i : t.order) gradient_state::add_row(s.data(), x(i), d, y(i));
    return s;
  }

  std::vector<double> evaluate(const std::vector<double>& model, const Table& t) const {
    packed_model::validate(model.data(), model.size());
    std::vector<double> totals(
        static_cast<std::size_t>(evaluation::totals_size(packed_model::classes(model.data()))), 0.0);
    for (std::int64_t i : t.order)
      packed_model::accumulate(model.data(), x(i), data_.dim(), static_cast<int>(y(i)), totals.data());
    return totals;
  }

  // As the GroupedRows statement (opdisc_groups.h has the layout).
  std::vector<double> grouped_rows(const std::vector<double>& input, const Table& t) const {
    if (input.size() != 1 || !(input[0] >= 0)) fail(ErrorKind::Internal, "in-memory driver: bad grouping input");
    std::vector<std::vector<double>> xs;
    std::vector<double> ys;
    for (std::int64_t i : t.order) {
      xs.push_back(data_.x[static_cast<std::size_t>(i)]);
      ys.push_back(y(i));
    }
    return opdisc::group_rows(xs, ys, static_cast<long>(input[0]));
  }

  // As dptrain.training_split: part p gets the rows at positions r = p mod
  // parts of the order, numbered 1.. in that order.
  std::vector<double> split(int parts) {
    if (parts < 1) fail(ErrorKind::Internal, "in-memory driver: a split needs parts");
    const Table& source = tables_[0];
    std::vector<Table> made(static_cast<std::size_t>(parts));
    for (std::size_t r = 0; r < source.order.size(); ++r) made[r % parts].order.push_back(source.order[r]);
    tables_.resize(1);
    std::vector<double> rows;
    for (Table& t : made) {
      t.numbered = t.order;
      rows.push_back(static_cast<double>(t.order.size()));
      tables_.push_back(std::move(t));
    }
    return rows;
  }

  const InMemoryData& data_;
  std::mt19937_64* reshuffler_;
  std::vector<Table> tables_;  // 0 = the prepared table, p = part p
};

}  // namespace

Model train_in_memory(TrainingConfig config, const InMemoryData& data, std::uint64_t shuffle_seed) {
  if (data.x.empty() || data.x.size() != data.y.size())
    fail(ErrorKind::InvalidData, "in-memory training needs rows with one label each");
  config.rows = data.rows();
  config.dim = data.dim();
  std::unique_ptr<Run> run = start_run(config);
  // With an intercept the run asks for passes over the augmented rows
  // (training/intercept.h), as dptrain.training_prepare makes them.
  InMemoryData augmented;
  if (config.intercept) {
    augmented.y = data.y;
    for (const auto& x : data.x)
      augmented.x.push_back(intercept::augment_row(x, config.feature_bound, intercept::constant_feature(config)));
  }
  const InMemoryData& rows = config.intercept ? augmented : data;
  std::vector<std::int64_t> order(static_cast<std::size_t>(config.rows));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 shuffler(shuffle_seed);
  std::shuffle(order.begin(), order.end(), shuffler);  // training_prepare's ORDER BY random()
  return drive_in_memory(*run, rows, std::move(order), &shuffler);
}

Model drive_in_memory(Run& run, const InMemoryData& data, std::vector<std::int64_t> order,
                      std::mt19937_64* reshuffler) {
  const std::int64_t n = data.rows();
  if (n == 0 || data.x.size() != data.y.size())
    fail(ErrorKind::InvalidData, "in-memory training needs rows with one label each");
  if (!order.empty()) {
    std::vector<std::int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = static_cast<std::int64_t>(sorted.size()) == n;
    for (std::int64_t i = 0; permutation && i < n; ++i) permutation = sorted[static_cast<std::size_t>(i)] == i;
    if (!permutation) fail(ErrorKind::Internal, "drive_in_memory: the order is not a permutation of the rows");
  }
  InMemoryDriver driver(data, std::move(order), reshuffler);
  while (std::optional<Pass> p = run.next()) {
    const std::vector<double> result = driver.execute(*p);
    run.accept(result.data(), result.size());
  }
  return run.release(0.0);
}

}  // namespace dptrain
