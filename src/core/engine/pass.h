// A pass: one thing a training run asks a driver to do with the data
// (DESIGN.md, "the engine, second shape"). The run decides WHAT to compute
// (the kind and its float8[] input); the SQL of every kind is decided here,
// once, and shared verbatim by every driver that talks to PostgreSQL (SPI in
// dp_train / dp_tune, libpq in `dptrain train` / `tune`), so they cannot
// drift; the in-memory driver (engine/in_memory.h) mirrors each kind.
//
// Every pass is one statement that takes $1 = the pass input (float8[]) and
// returns one row with one float8[] column: the result the run accepts.
//
// Tables: a run works on the table the driver prepared (dptrain.training_prepare:
// columns i = row number 1..n in a uniformly random order, x float8[],
// y float8 = class index) and, after a Split pass, on its parts. Pass::table
// names which: 0 = the prepared table, p >= 1 = part p of the last split.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dptrain {

enum class PassKind {
  // One permutation-SGD epoch (Bismarck): dptrain.sgd_epoch over the table
  // in its order. Input and result: the epoch state (sgd/epoch_state.h).
  SgdEpoch,
  // One epoch of sampled batches (BST14): dptrain.sampled_epoch draws
  // ceil(n/b) batches from the state's key and applies them (as
  // dptrain.sampled_rows streamed into dptrain.sgd_sampled_epoch). Input and
  // result: the epoch state.
  SampledEpoch,
  // Sums of per-row losses and loss gradients at one or more model points:
  // dptrain.gradient_sum (engine/gradient_state.h). Exact sums: the
  // aggregate combines by addition, so it may run in parallel.
  GradientLoss,
  // The evaluation totals of a packed model ({rows, correct, loss_sum,
  // confusion matrix, ...}: core/evaluation/metrics.h): dptrain.evaluate_agg.
  Evaluate,
  // A fresh uniformly random order of the table (rows renumbered 1..n).
  // Input: none. Result: empty.
  Reshuffle,
  // Deals the prepared table out into Pass::parts parts by position (row r,
  // 0-based in the random order, goes to part r mod parts), each a prepared
  // table of its own. Input: none. Result: the parts' row counts.
  Split,
  // The rows grouped by their binarized feature vector (x_j -> 1 if
  // x_j >= 1/2, else 0), with the number of rows of class index 1 and of
  // class index 0 in each group (OPDisc's oracle: algorithms/opdisc_groups.h).
  // A GROUP BY, so it runs in parallel and distributes. Input: {max groups}.
  // Result: {G, rows changed by the binarization, then per group in the
  // order of the binarized vector: x_1..x_d, positives, negatives}; the
  // groups are left out if G > max groups.
  GroupedRows,
  // Lots of DP-SGD (Poisson sampling, dpsgd/lot_state.h): dptrain.lots_pass
  // draws lots current .. last from the state's key, fetches their rows by
  // row number and clips, noises and steps every lot (as dptrain.lot_rows
  // streamed into dptrain.dpsgd_lots). Many lots per query. Input and
  // result: the lot state.
  PoissonLots,
};

const char* pass_kind_name(PassKind kind);

struct Pass {
  PassKind kind = PassKind::SgdEpoch;
  int table = 0;               // 0 = the prepared table, p >= 1 = part p
  std::vector<double> input;   // $1
  std::int64_t rows = 0;       // rows of that table (public; SampledEpoch, PoissonLots need it)
  int parts = 0;               // Split; a part of a keyed split (below)
  // SgdEpoch on a distributed source (engine/distributed.h): the epoch's
  // shuffle key (4 words, sgd::epoch_key_to_words) and the local passes P
  // every shard makes over its rows. Empty / 1 on a prepared table.
  std::vector<double> shuffle_key;
  int local_passes = 1;
  // A part of a keyed split of a distributed source (private tuning,
  // docs/tuning.md section 5): with `table` = p >= 1 and `parts`, the pass
  // reads the rows with dptrain.tuning_part(row key, kappa, parts) = p, where
  // they are (sgd/shuffle_key.h); kappa as 4 words. Empty: no keyed split
  // (part p of a prepared table is the table the Split pass made).
  std::vector<double> split_key;
};

// The prepared table's name is chosen by the driver (training_prepare);
// the name of its part p is derived from it.
std::string part_table_name(const std::string& prepared, int part);
// The name of `pass.table` given the prepared table's.
std::string pass_table_name(const Pass& pass, const std::string& prepared);

// The statement of `pass` over the table named `table` (a name the engine
// made: pg_temp.dptrain_shuffled_N or one of its parts).
std::string pass_sql(const Pass& pass, const std::string& table);

}  // namespace dptrain
