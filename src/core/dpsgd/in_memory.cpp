#include "core/dpsgd/in_memory.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace dptrain::dpsgd {

void run_pass(std::vector<double>& state, const LabeledRows& data, std::uint64_t last) {
  double* s = state.data();
  if (data.rows != lot_state::rows(s) || data.dim != lot_state::dim(s))
    fail(ErrorKind::Internal, "DP-SGD: data and state disagree on n or d");
  PoissonLots lots(lot_state::key(s), lot_state::rows(s), lot_state::sampling_rate(s));
  lot_state::set_last_lot(s, last);
  for (std::uint64_t t = lot_state::current_lot(s); t <= last; ++t)
    for (std::int64_t r : lots.lot(t)) {
      const std::size_t i = static_cast<std::size_t>(r - 1);
      lot_state::add_row(s, data.x + i * static_cast<std::size_t>(data.dim), data.labels[i], t);
    }
  lot_state::finish(s);
}

std::vector<double> train_in_memory(const DpSgdPlan& plan, const LabeledRows& data,
                                    const privacy::RandomSource::Key& key, bool seeded, std::uint64_t lots_per_pass) {
  if (lots_per_pass == 0) fail(ErrorKind::InvalidParameter, "lots_per_pass must be >= 1");
  std::vector<double> state = lot_state::make_state(plan.lots, key, seeded);
  const std::uint64_t total = static_cast<std::uint64_t>(plan.steps);
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t last = std::min(total, done + lots_per_pass);
    run_pass(state, data, last);
    done = last;
  }
  return state;
}

}  // namespace dptrain::dpsgd
