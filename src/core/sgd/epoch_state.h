// The state of the Bismarck epoch aggregate: an ordinary float8[] so that
// PostgreSQL parallel workers and distributed engines (Citus) can ship and
// combine it (DESIGN.md). Layout, all values exact doubles:
//
//   [0, kHeaderSize)            header (Field below)
//   w     K*d                   current model(s), row k = one-vs-all model k
//   acc   K*d                   gradient sum of the pending mini-batch
//   avg   K*d (if averaging)    running average of the iterates
//
// Shard counts (version 2; docs/distributed.md section 9.2): an epoch on a
// distributed table carries kShardCounted = 1 and the epoch's secret count
// key (sgd/shard_counts.h). A state that was never combined (kShardStates
// = 0) is one shard's (or one parallel worker's); the combine folds every
// such state's row count into the fingerprint of the multiset of counts
// (kShardStates, and the sum of keyed hashes as two 32-bit halves), which
// the run compares with the counts it planned from. A state without the
// flag (a plain table, by hand) is combined exactly as in version 1, its
// fingerprint fields stay zero.
//
// White-box noise (SCS13, BST14; docs/whitebox.md): when kNoiseKind is not
// none, every update first adds a noise vector Z_t (K*d values, one joint
// mechanism over all one-vs-all models) to the batch's gradient SUM, then
// steps with (acc + Z_t) / b. Z_t is drawn from RandomSource::from_key(key, t)
// (privacy/batch_noise.h), t = the global update index, so every batch has
// its own stream and nothing but the state itself is needed to continue a
// run: no RNG object lives across rows.
// The key is stored as eight 32-bit integer words (exact doubles, survives a
// text round trip). Noisy partial states are never combined (combine()
// refuses them: the analysis is of one sequential run, and the noise of an
// aggregate is never added in a combine function).
//
// Sampled batches (BST14): with kSampledBatches = 1 the rows arrive as
// numbered batches of exactly b rows (add_sampled_row checks the order and
// the size; add_row refuses such a state).
//
// The controller builds the initial state (make_state), the aggregate's
// transition function copies it once into the aggregate context and then
// calls add_row() per tuple, updating the array in place. The final
// function flushes the pending partial batch and returns the whole state;
// the controller reads the model back with the accessors.
//
// Every update averages the batch's gradient sum with the *nominal* batch
// size b, also for the last, partial batch of an epoch: each row then has
// weight exactly 1/b in every update, which is what the "divide the
// sensitivity by b" argument of Bolt-on §3.2.3 needs (docs/pitfalls.md §P2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/loss/loss.h"
#include "core/privacy/batch_noise.h"
#include "core/privacy/random_source.h"
#include "core/sgd/shard_counts.h"
#include "core/sgd/step_schedule.h"
#include "core/sparse/sparse_vector.h"

namespace dptrain::epoch_state {

enum Field : int {
  kMagic = 0,
  kVersion,
  kDim,            // d
  kModels,         // K: 1 = binary, > 1 = one-vs-all over K classes
  kLoss,           // LossKind
  kHuberH,
  kLambda,         // L2 regularization
  kRadius,         // project onto ||w|| <= radius after every update; 0 = never
  kFeatureBound,   // rows are clipped to ||x|| <= feature bound (per-row, DP-safe)
  kBatchSize,      // b
  kSchedule,       // ScheduleKind
  kEta,
  kBeta,
  kGamma,
  kOffset,
  kUpdates,        // t: number of updates done so far (global across epochs)
  kRows,           // rows consumed by this state (combine weights)
  kPending,        // rows in the pending (not yet applied) mini-batch
  kAveraging,      // 1 = keep the running average of the iterates
  kAveraged,       // number of iterates in that average
  // Scaled weights of the sparse hot path (add_sparse_row, docs/sparse.md):
  // 0 = the weights region holds w itself; a > 0 = it holds v with w = a v,
  // and kWeightNormSq is ||v||^2 (kept only with a radius). Every function
  // but add_sparse_row first writes w back (materialize), so a final,
  // combined or flushed state always holds w itself.
  kWeightScale,
  kWeightNormSq,
  // Fields kNoiseFirst .. kHeaderSize-1: white-box noise added at the end
  // of every mini-batch inside the aggregate (zero when there is none).
  kNoiseFirst = 24,
  kNoiseKind = kNoiseFirst,  // privacy::BatchNoiseKind
  kNoiseScale,               // Gaussian sigma / L2-Laplace scale, on the gradient SUM
  kNoiseSeeded,              // 1 = the key comes from a test seed (NOT private)
  kNoiseKey,                 // kNoiseKey .. kNoiseKey+7: the 256-bit key, 32-bit words
  kSampledBatches = kNoiseKey + 8,  // 1 = rows arrive in sampled batches (BST14)
  kSampledBatch,             // number of the current (or last) sampled batch of this epoch
  kShardCounted,             // 1 = fold the shard states' row counts in the combine
  kShardKey,                 // kShardKey .. kShardKey+3: the epoch's count key, 32-bit words
  kShardStates = kShardKey + 4,  // shard states folded so far; 0 = one shard's state, never combined
  kShardSumLow,              // sum of their keyed count hashes mod 2^64: bits 0..31
  kShardSumHigh,             //   and bits 32..63
  kHeaderSize = 48,
};

constexpr double kMagicValue = 1146115188.0;  // "DPTt" as an integer
constexpr int kVersionValue = 2;  // 2: the shard counts (kShardCounted ..)
// K * d above this gives a clear error instead of a huge allocation.
constexpr std::int64_t kMaxParameters = 10'000'000;

struct EpochConfig {
  int dim = 0;
  int models = 1;
  LossKind loss = LossKind::Logistic;
  double huber_h = kDefaultHuberH;
  double lambda = 0.0;
  double radius = 0.0;
  double feature_bound = 1.0;
  std::int64_t batch_size = 1;
  StepSchedule schedule;
  bool averaging = false;
  // White-box noise (none by default). The key is secret: it is never part
  // of a plan or of a model's metadata, only of the states of one run.
  privacy::BatchNoiseKind noise = privacy::BatchNoiseKind::None;
  double noise_scale = 0.0;
  bool noise_seeded = false;
  privacy::KeyWords noise_key{};
  bool sampled_batches = false;
  // The epoch's count key (an epoch on a distributed table; never recorded
  // outside the states of that epoch).
  bool count_shards = false;
  sgd::CountKey count_key{};
};

std::size_t state_length(int dim, int models, bool averaging);

// Initial state of an epoch: model `weights` (K*d, row-major; nullptr = zeros)
// after `updates` updates; `average` (nullptr = equal to weights) over
// `averaged` iterates.
std::vector<double> make_state(const EpochConfig& config, const double* weights,
                               std::uint64_t updates, const double* average = nullptr,
                               std::uint64_t averaged = 0);

// Throws Error(InvalidState) unless `s` is a well-formed state of `len`
// values. Called on every state that enters the aggregate from outside.
void validate(const double* s, std::size_t len);

// The O(1) part of validate(): magic, version, dimensions, flags and
// counters agree with `len`, so that add_row/flush/combine stay inside the
// array and their switches see known enums.
void validate_layout(const double* s, std::size_t len);

// What fixes a state's memory layout (and the enums the hot path switches
// on), taken from a state that passed validate(). same_layout() is the
// check the transition function runs on every row: a handful of
// comparisons, so a different array that happens to sit at the address of
// the last validated one cannot make add_row step outside it.
struct LayoutKey {
  std::size_t len;
  double magic, version, dim, models, averaging, loss, schedule;
};
inline LayoutKey layout_key(const double* s, std::size_t len) {
  return {len, s[kMagic], s[kVersion], s[kDim], s[kModels], s[kAveraging], s[kLoss], s[kSchedule]};
}
inline bool same_layout(const double* s, std::size_t len, const LayoutKey& k) {
  return len == k.len && len >= kHeaderSize && s[kMagic] == k.magic && s[kVersion] == k.version &&
         s[kDim] == k.dim && s[kModels] == k.models && s[kAveraging] == k.averaging && s[kLoss] == k.loss &&
         s[kSchedule] == k.schedule;
}

EpochConfig config_of(const double* s);

// True if `a` and `b` (both valid) belong to the same training run: the
// same configuration, noise and key (counters may differ).
bool same_run(const double* a, const double* b);

// --- the hot path ------------------------------------------------------------
// One tuple: accumulates its gradient and takes an SGD step when the
// mini-batch is full. `label` is -1/+1 (0 is read as -1) for a binary state,
// the class index 0..K-1 for a one-vs-all state.
void add_row(double* s, const double* x, std::int64_t len, double label);
void add_row(double* s, const float* x, std::int64_t len, double label);

// The same step for a sparse row (core/sparse/sparse_vector.h): the same
// clipping to the feature bound and the same update, in O(nnz) work per row
// plus O(K d) per update of a mini-batch. With batch size 1, no white-box
// noise, no averaging and (for K > 1) no radius, the update itself is
// O(nnz) too: w = a v, the L2 decay (1 - eta lambda) multiplies a only, and
// the projection rescales a from the maintained ||v||^2 (docs/sparse.md).
void add_sparse_row(double* s, const sparse::RowView& x, double label);

// Whether add_row accepts the features `x` (finite values whose squared norm
// does not overflow), so that a caller may replace a row it cannot use
// before it reaches the aggregate.
bool usable_features(const double* x, std::int64_t len);

// One tuple of sampled batch number `batch` (1, 2, ... in this epoch; every
// batch has exactly b rows and arrives in order, else Error(InvalidState)).
void add_sampled_row(double* s, const double* x, std::int64_t len, double label, std::int64_t batch);

// Applies the pending partial mini-batch, if any (sum divided by b), and
// writes scaled weights back (kWeightScale). A sampled state must not have
// a pending batch (Error(Internal)).
void flush(double* s);

// Count-weighted model averaging of two states of the same configuration into
// `into` (pending partial batches are applied first); a state that has seen
// no rows is the identity. States with white-box noise or sampled batches
// are only ever combined with an empty state (anything else throws): their
// privacy analysis is that of one sequential run. States with count_shards
// fold their shard counts into the fingerprint (shard_fingerprint(into)
// becomes shard_fingerprint(into) + shard_fingerprint(other)).
void combine(double* into, std::size_t into_len, const double* other, std::size_t other_len);

// The fingerprint of the multiset of shard row counts a state of an epoch
// with count_shards has seen (sgd/shard_counts.h): a state never combined
// is one shard's, (1, H(rows)) or nothing if it saw no rows; a combined
// state carries the sum. Error(Internal) for a state without the flag.
sgd::CountFingerprint shard_fingerprint(const double* s);

// --- accessors -----------------------------------------------------------------
inline int dim(const double* s) { return static_cast<int>(s[kDim]); }
inline int models(const double* s) { return static_cast<int>(s[kModels]); }
inline std::uint64_t updates(const double* s) { return static_cast<std::uint64_t>(s[kUpdates]); }
inline std::uint64_t rows(const double* s) { return static_cast<std::uint64_t>(s[kRows]); }
inline std::uint64_t averaged(const double* s) { return static_cast<std::uint64_t>(s[kAveraged]); }
inline bool averaging(const double* s) { return s[kAveraging] != 0.0; }
inline bool noisy(const double* s) { return s[kNoiseKind] != 0.0; }
inline bool sampled(const double* s) { return s[kSampledBatches] != 0.0; }
inline bool counts_shards(const double* s) { return s[kShardCounted] != 0.0; }
inline double* weights(double* s) { return s + kHeaderSize; }
inline const double* weights(const double* s) { return s + kHeaderSize; }
inline const double* average(const double* s) {
  return s + kHeaderSize + 2 * static_cast<std::size_t>(dim(s)) * models(s);
}

}  // namespace dptrain::epoch_state
