// The SQL a training run executes, decided by the plan and shared verbatim by
// dp_train (inside the backend, over SPI) and `dptrain train` (over libpq):
// both glue layers only run these statements, so the two paths cannot drift.
//
// `table` is the prepared training table returned by
// dptrain.training_prepare (pg_temp.dptrain_shuffled_N, columns i = row
// number 1..n, x float8[], y float8 = class index). Every epoch statement
// takes one parameter, $1 = the epoch's initial state (float8[]), and
// returns one row with the final state.
#pragma once

#include <cstdint>
#include <string>

#include "core/training/config.h"

namespace dptrain {

// One epoch:
//  * permutation epoch (every algorithm but BST14): one sequential scan of
//    the shuffled temp table through dptrain.sgd_epoch;
//  * sampled batches (BST14): dptrain.sampled_rows($1, table, n) draws
//    ceil(n/b) batches of b row numbers from the run's secret key (the
//    batches dptrain.sample_batches lists) and streams those rows, batch
//    after batch, into dptrain.sgd_sampled_epoch, which checks that every
//    batch arrives whole and in order.
std::string epoch_sql(const TrainingPlan& plan, const std::string& table, std::int64_t rows);

// The training loss of the current model (convergence tolerance only):
// $1 = Trainer::current_packed_model(); returns one row {rows, correct,
// loss_sum} (the evaluation aggregate's state) over the prepared table.
std::string training_loss_sql(const std::string& table);
// Mean loss from that row's float8[] state.
double mean_training_loss(const double* totals, std::size_t len);

}  // namespace dptrain
