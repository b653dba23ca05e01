// L2-sensitivity of permutation SGD as the dptrain engine runs it: the
// bounds of Bolt-on (Wu et al., SIGMOD 2017, §3.2),
// restated for the engine's exact update sequence.
//
// The engine (src/core/sgd/epoch_state.h) runs k epochs over m rows; an
// epoch is U = ceil(m/b) updates: consecutive mini-batches of b rows of a
// permutation, the last one partial (r = m - (U-1) b rows, 1 <= r <= b).
// Every update, partial or not, is
//     w <- Pi_R( (1 - eta_t lambda) w - (eta_t / b) sum_{i in batch} grad l_i(w) )
// with the regularizer at full weight and the gradient sum divided by the
// NOMINAL b; t counts updates across epochs (t = 1..T, T = kU).
//
// Why every Bolt-on argument holds for this sequence, partial batch included:
//  * The step is a gradient step on f_B(w) = (lambda/2)||w||^2 + (1/b) sum_{i in B} l_i(w),
//    which is lambda-strongly convex and (lambda + (|B|/b) beta_l)-smooth with
//    |B|/b <= 1, so beta = beta_l + lambda bounds every batch's smoothness and
//    the expansiveness of Lemmas 1-2 (1 if eta <= 2/beta, 1 - eta gamma if
//    eta <= 1/beta) holds for every update. Projection is non-expansive (§3.2.3).
//  * Neighbouring datasets (replace-one) coupled with the same permutation
//    differ in one row at the same position, so in each epoch exactly one
//    update differs, and the two updates differ by at most (eta_t / b) * 2L
//    at the same point (the row has weight exactly 1/b, also in the partial
//    batch: docs/pitfalls.md §P2). Growth recursion (Lemma 4):
//        delta_t <= rho_t delta_{t-1} + 2 L eta_t / b   (the differing update)
//        delta_t <= rho_t delta_{t-1}                   (all others).
//  * The position of the row in each epoch is unknown, so every bound below
//    is the maximum over positions (fresh permutations per epoch included).
//  * L is the Lipschitz constant of the per-row objective l + (lambda/2)||w||^2
//    on the ball ||w|| <= R (L_x + lambda R, Bolt-on §2); it is conservative,
//    since the regularizer's gradient is the same in both runs.
//
// Released output (Lemma 10, model averaging): the engine's `averaging`
// releases the uniform average (1/T) sum_{t=1..T} w_t of all iterates,
// whose sensitivity is at most (1/T) sum_t Delta_t with Delta_t a bound on
// iterate t over all positions. Each function documents its Delta_t; in the
// strongly convex case early iterates are far MORE sensitive than the last
// one (Delta_1 = 2L eta_1 / b), so there the average costs more noise than
// the final iterate (docs/pitfalls.md §P20).
//
// Every function validates its inputs and throws Error(InvalidParameter)
// with the violated precondition (eta <= 2/beta, eta <= 1/beta, ...).
#pragma once

#include <cstdint>
#include <string>

#include "core/loss/loss.h"
#include "core/sgd/step_schedule.h"

namespace dptrain::privacy::bolton {

// The public shape of a run (n is public under replace-one adjacency).
struct RunShape {
  std::int64_t rows = 0;        // m
  std::int64_t batch_size = 1;  // b
  int epochs = 1;               // k
  std::int64_t updates_per_epoch() const;  // U = ceil(m / b)
  double total_updates() const;            // T = k U
};

enum class Output {
  LastIterate,     // w_T
  UniformAverage,  // (1/T) sum_{t=1}^{T} w_t  (epoch_state averaging)
};

// Convex, constant step eta <= 2/beta: Corollary 1 with mini-batches (§3.2.3),
//   Delta = 2 k L eta / b.
// Average: iterate t of epoch c has Delta_t <= 2 c L eta / b, so the average
// is (2 L eta / b) (k + 1) / 2.
double convex_constant_step(double lipschitz, double smoothness, double eta, const RunShape& shape,
                            Output output = Output::LastIterate);

// Convex, decreasing step eta_t = 2 / (beta (t + offset)), offset = m^c:
// Corollary 2 as the exact finite sum of Lemma 6 with the row at the first
// update of every epoch (the worst position for a non-increasing schedule):
//   Delta = (2L/b) sum_{j=0}^{k-1} eta_{1 + jU} = (4L/(beta b)) sum_j 1/(1 + jU + offset).
double convex_decreasing_step(double lipschitz, double smoothness, double offset, const RunShape& shape,
                              Output output = Output::LastIterate);

// Convex, square-root step eta_t = 2 / (beta (sqrt(t) + offset)): Corollary 3,
//   Delta = (4L/(beta b)) sum_{j=0}^{k-1} 1/(sqrt(1 + jU) + offset).
double convex_sqrt_step(double lipschitz, double smoothness, double offset, const RunShape& shape,
                        Output output = Output::LastIterate);

// Strongly convex (gamma > 0), eta_t = min(1/beta, 1/(gamma t)): Lemma 8,
//   Delta = k (2L/b) eta_T = min(2kL/(b beta), 2L/(gamma b U))  <=  2L/(gamma m),
// equal to the paper's 2L/(gamma m) when b divides m and T >= beta/gamma.
// NOT divided by b again (docs/pitfalls.md §P1).
double strongly_convex_decreasing_step(double lipschitz, double smoothness, double strong_convexity,
                                       const RunShape& shape, Output output = Output::LastIterate);

// Strongly convex, constant step eta <= 1/beta: Lemma 7 with U updates per
// epoch, as the exact finite sum (rho = 1 - eta gamma, row at the last update
// of every epoch, the worst position):
//   Delta = (2 eta L / b) sum_{j=0}^{k-1} rho^{jU}  <  (2 eta L / b) / (1 - rho^U).
double strongly_convex_constant_step(double lipschitz, double smoothness, double strong_convexity, double eta,
                                     const RunShape& shape, Output output = Output::LastIterate);

struct Bound {
  double sensitivity = 0.0;
  bool strongly_convex = false;
  std::string rule;  // the lemma, for the model's metadata
};

// The bound for the schedule the engine will run with these loss constants.
// Constant steps use Lemma 7 when strong_convexity > 0, Corollary 1
// otherwise. The schedule's beta (gamma) must not be below (above) the
// loss's smoothness (strong convexity). inverse_sqrt has no Bolt-on bound.
Bound sensitivity(const StepSchedule& schedule, const LossConstants& constants, const RunShape& shape,
                  Output output = Output::LastIterate);

}  // namespace dptrain::privacy::bolton
