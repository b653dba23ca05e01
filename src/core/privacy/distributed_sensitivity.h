// L2-sensitivity of distributed permutation SGD: the training of a table
// split into S shards (Citus), one epoch = every shard runs permutation SGD
// over its own rows from the same starting model, then the shard models are
// averaged with weights n_s / n (the combine function of the epoch
// aggregate). The derivation, its condition and the numbers are in
// docs/distributed.md; this is the bound the trainer must use.
//
// The run, as the engine executes it (src/core/sgd/epoch_state.h):
//   * epoch e (0-based) starts every shard at the global update counter
//     t_e = e U, with U = max_s ceil(P n_s / b) (the combine keeps the
//     largest counter, so the next epoch starts there);
//   * shard s feeds its n_s rows P times (P = local passes, one aggregate
//     call over P concatenated permutations of the shard), in mini-batches
//     of b rows divided by the nominal b, the last one partial and flushed
//     by the combine: updates t_e + 1 .. t_e + U_s, U_s = ceil(P n_s / b);
//   * the epoch's model is sum_s (n_s / n) w_s (empty shards have weight 0).
//
// Condition (replace-one adjacency WITHIN a shard): the shard sizes n_s are
// public, i.e. the neighbour of a row stays in the row's shard. That holds
// when the table is distributed by a surrogate key (an id that is not data);
// it does not hold for a data column, whose change moves the row to another
// shard and changes the averaging weights.
//
// Bound (Hardt-Recht-Singer growth recursion, as in Bolt-on Lemmas 1-4):
// coupling both runs with the same permutations, every shard's update is
// rho_t-expansive (rho_t = 1 if eta_t <= 2/beta, convex; 1 - eta_t gamma if
// eta_t <= 1/beta, strongly convex) and the differing row, in shard s*,
// changes one update per pass by at most 2 L eta_t / b. Averaging is a convex
// combination, so with delta_e = ||w_e - w'_e||:
//   delta_{e+1} <= (sum_s (n_s/n) C_{s,e}) delta_e + max_s (n_s/n) I_{s,e}
// where C_{s,e} = prod of rho_t over shard s's updates of epoch e, and
// I_{s,e} = (2L/b) sum_{p<P} max_{tau in pass p} eta_tau prod_{u>tau} rho_u
// (the worst position of the row in each pass). delta_0 = 0; the bound is
// delta_k. With one shard this is exactly the sequential Bolt-on bound
// (Corollaries 1-3, Lemma 7; Lemma 8 once the first epoch ends at or past
// t0 = ceil(beta/gamma), below which the recursion is smaller).
//
// Only the last iterate is covered (no averaged iterates: the combine
// weights of the running averages differ from the model's).
#pragma once

#include <cstdint>
#include <vector>

#include "core/loss/loss.h"
#include "core/privacy/bolton_sensitivity.h"
#include "core/sgd/step_schedule.h"

namespace dptrain::privacy::distributed {

// The public shape of a distributed run.
struct ShardedShape {
  std::vector<std::int64_t> shard_rows;  // n_s of every shard (0 allowed, n >= 1)
  std::int64_t batch_size = 1;           // b
  int epochs = 1;                        // k: rounds of shard training + averaging
  int local_passes = 1;                  // P: passes over its rows per shard and epoch

  std::int64_t rows() const;                            // n = sum_s n_s
  std::int64_t shard_updates(std::size_t shard) const;  // U_s = ceil(P n_s / b)
  // U = max_s U_s: how far the update counter advances per epoch. The step
  // schedule of epoch e starts at t = e U + 1 on every shard.
  std::int64_t updates_per_epoch() const;
  double weight(std::size_t shard) const;  // n_s / n
};

// Throws Error(InvalidParameter) unless the shape is usable.
void validate(const ShardedShape& shape);

// The bound for the schedule the engine will run with these loss constants
// (the same schedules and preconditions as bolton::sensitivity; inverse_sqrt
// has no bound). The rule names the recursion for the model's metadata.
bolton::Bound sensitivity(const StepSchedule& schedule, const LossConstants& constants, const ShardedShape& shape);

// Closed form for the convex constant step (Corollary 1 per shard):
//   Delta = k P (2 L eta / b) max_s (n_s / n).
double convex_constant_step(double lipschitz, double smoothness, double eta, const ShardedShape& shape);

// The convergence remedy (docs/distributed.md section 3). Averaging S shard
// models moves the model about S times less per epoch than one sequential
// pass with the same step (to first order the average is one pass with step
// eta / S), and the sensitivity shrinks by the same factor. A distributed
// epoch with P local passes and step eta' such that
//     P eta' max_s n_s / n = eta
// behaves like a sequential epoch with step eta and has exactly its convex
// constant-step sensitivity 2 k L eta / b. Returns the fewest passes that
// keep eta' <= 2/beta (Lemma 1), P = ceil(c eta beta / 2) with
// c = n / max_s n_s (S for equal shards), and eta' = c eta / P.
struct SequentialEquivalent {
  double eta = 0;
  int local_passes = 1;
};
SequentialEquivalent sequential_equivalent(double eta, double smoothness, const ShardedShape& shape);

}  // namespace dptrain::privacy::distributed
