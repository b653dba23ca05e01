#include "core/sgd/epoch_state.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/sgd/divergence.h"
#include "core/sgd/projection.h"
#include "core/training/feature_row_errors.h"

namespace dptrain::epoch_state {
namespace {

using Vec = Eigen::Map<Eigen::VectorXd>;
using ConstVec = Eigen::Map<const Eigen::VectorXd>;

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53
// Scaled weights (add_sparse_row): outside [kMinScale, 1 / kMinScale] the
// scale is folded back into the weights (O(K d), rare), so a and v stay far
// from under- and overflow.
constexpr double kMinScale = 1e-100;

bool is_count(double v) { return v >= 0 && v <= kMaxExactInteger && std::floor(v) == v; }

[[noreturn]] void bad_state(const std::string& why) {
  fail(ErrorKind::InvalidState, "malformed dptrain training state", why,
       "States are produced by the dptrain controller; do not construct them by hand.");
}

std::size_t block(const double* s) { return static_cast<std::size_t>(dim(s)) * models(s); }
double* accumulator(double* s) { return s + kHeaderSize + block(s); }
double* average_mut(double* s) { return s + kHeaderSize + 2 * block(s); }

privacy::KeyWords key_words_of(const double* s) {
  privacy::KeyWords k;
  for (int i = 0; i < 8; ++i) k[i] = static_cast<std::uint32_t>(s[kNoiseKey + i]);
  return k;
}

void add_state_noise(const double* s, double* acc, std::size_t n, std::uint64_t t) {
  const auto kind = static_cast<privacy::BatchNoiseKind>(static_cast<int>(s[kNoiseKind]));
  privacy::add_batch_noise(kind, s[kNoiseScale], privacy::key_from_words(key_words_of(s)), t, acc, n);
}

// Scaled weights (kWeightScale, docs/sparse.md): w = a v while a > 0.
double weight_scale(const double* s) { return s[kWeightScale] > 0 ? s[kWeightScale] : 1.0; }

// Writes w = a v back into the weights region (O(K d)); a no-op when the
// weights are not scaled.
void materialize(double* s) {
  const double a = s[kWeightScale];
  if (a == 0) return;
  Vec(weights(s), block(s)) *= a;
  s[kWeightScale] = 0;
  s[kWeightNormSq] = 0;
}

// w <- Pi_R(w - eta (lambda w + (acc [+ Z_t]) / b)) for every model, then reset acc.
void step(double* s) {
  materialize(s);
  const int d = dim(s);
  const int K = models(s);
  const double b = s[kBatchSize];
  const double lambda = s[kLambda];
  const double radius = s[kRadius];
  StepSchedule schedule;
  schedule.kind = static_cast<ScheduleKind>(static_cast<int>(s[kSchedule]));
  schedule.eta = s[kEta];
  schedule.beta = s[kBeta];
  schedule.gamma = s[kGamma];
  schedule.offset = s[kOffset];
  const std::uint64_t t = updates(s) + 1;
  const double eta = schedule.at(t);

  double* w = weights(s);
  double* acc = accumulator(s);
  // White-box noise on the batch's gradient sum (SCS13 / BST14): one joint
  // draw over all K models, from the stream of update t.
  if (noisy(s)) add_state_noise(s, acc, block(s), t);
  for (int k = 0; k < K; ++k) {
    Vec wk(w + static_cast<std::size_t>(k) * d, d);
    Vec gk(acc + static_cast<std::size_t>(k) * d, d);
    wk = (1.0 - eta * lambda) * wk - (eta / b) * gk;
    if (radius > 0) project_l2_ball(wk.data(), d, radius);
    gk.setZero();
  }
  // A step or lambda far too large makes the weights overflow; the next call's
  // validate() called that a malformed state that the user must not construct.
  if (!ConstVec(w, block(s)).allFinite())
    fail_diverged("SGD", "At update " + std::to_string(t) + ".");
  s[kUpdates] = static_cast<double>(t);
  s[kPending] = 0;
  if (averaging(s)) {
    const double n = s[kAveraged] + 1;
    Vec avg(average_mut(s), block(s));
    avg += (ConstVec(w, block(s)) - avg) / n;
    s[kAveraged] = n;
  }
}

// The factor that clips a row of squared norm `sq` to ||x|| <= L_x (the
// state's feature bound): the Lipschitz constant the privacy analysis
// assumes. It depends on this row only, so it is DP-safe.
double clipping_scale(const double* s, double sq) {
  const double bound = s[kFeatureBound];
  return sq > bound * bound ? bound / std::sqrt(sq) : 1.0;
}

// A binary label is -1, 0 or +1; a one-vs-all label a class index < K.
void check_label(double label, int K) {
  if (K == 1) {
    if (!(label == 1.0 || label == -1.0 || label == 0.0))
      fail(ErrorKind::InvalidData, "binary label must be -1, 0 or +1 (or boolean)",
           "Got " + std::to_string(label) + ".", "Map the labels to -1/+1 or pass classes.");
  } else if (!(label >= 0 && label < K && std::floor(label) == label)) {
    fail(ErrorKind::InvalidData, "class label out of range",
         "Got class index " + std::to_string(label) + " for " + std::to_string(K) + " classes.",
         "Labels must belong to the declared classes.");
  }
}

[[noreturn]] void refuse_unsampled_rows() {
  fail(ErrorKind::InvalidState, "this training state takes sampled batches only", {},
       "BST14 epochs run through dptrain.sgd_sampled_epoch over dptrain.sampled_rows, not over a permutation.");
}

template <typename T>
double squared_norm(const T* x_data, std::int64_t len) {
  using XVec = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
  return static_cast<double>(XVec(x_data, len).template cast<double>().squaredNorm());
}

template <typename T>
void add_row_impl(double* s, const T* x_data, std::int64_t len, double label) {
  materialize(s);
  const int d = dim(s);
  if (len != d)
    throw Error(ErrorKind::InvalidData, "feature arrays have different lengths",
                "A row has " + std::to_string(len) + " features, the training expects " + std::to_string(d) + ".",
                "Every row must have the same number of features.", sqlstate::kArraySubscriptError);
  using XVec = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;
  const XVec x(x_data, d);
  const int K = models(s);
  double* w = weights(s);
  double* acc = accumulator(s);

  const double sq = squared_norm(x_data, len);
  if (!std::isfinite(sq)) refuse_feature_row(x_data, len);
  const double scale = clipping_scale(s, sq);
  const auto loss = static_cast<LossKind>(static_cast<int>(s[kLoss]));
  const double h = s[kHuberH];

  check_label(label, K);
  if (K == 1) {
    const double y = label > 0 ? 1.0 : -1.0;
    const double dot = ConstVec(w, d).dot(x.template cast<double>()) * scale;
    const double c = loss_derivative(loss, y * dot, h) * y * scale;
    if (c != 0.0) Vec(acc, d) += c * x.template cast<double>();
  } else {
    const int cls = static_cast<int>(label);
    for (int k = 0; k < K; ++k) {
      const double y = k == cls ? 1.0 : -1.0;
      const std::size_t off = static_cast<std::size_t>(k) * d;
      const double dot = ConstVec(w + off, d).dot(x.template cast<double>()) * scale;
      const double c = loss_derivative(loss, y * dot, h) * y * scale;
      if (c != 0.0) Vec(acc + off, d) += c * x.template cast<double>();
    }
  }
  s[kRows] += 1;
  s[kPending] += 1;
  if (s[kPending] >= s[kBatchSize]) step(s);
}

// The white-box fields: kind, scale, seeded flag, key words, sampling.
void validate_noise(const double* s) {
  const double kind = s[kNoiseKind];
  if (!(kind == 0 || kind == 1 || kind == 2)) bad_state("Unknown noise kind.");
  if (!(s[kSampledBatches] == 0 || s[kSampledBatches] == 1)) bad_state("Invalid sampled-batches flag.");
  if (!is_count(s[kSampledBatch])) bad_state("Invalid sampled batch number.");
  if (s[kSampledBatches] == 0 && s[kSampledBatch] != 0) bad_state("A batch number without sampled batches.");
  const bool keyed = kind != 0 || s[kSampledBatches] != 0;
  for (int i = 0; i < 8; ++i) {
    const double w = s[kNoiseKey + i];
    if (!(is_count(w) && w <= 4294967295.0)) bad_state("Invalid key word.");
    if (!keyed && w != 0) bad_state("A key without white-box noise or sampling.");
  }
  if (kind == 0) {
    if (s[kNoiseScale] != 0 || s[kNoiseSeeded] != 0) bad_state("Noise parameters without a noise kind.");
    return;
  }
  if (!(s[kNoiseScale] > 0 && std::isfinite(s[kNoiseScale]))) bad_state("Invalid noise scale.");
  if (!(s[kNoiseSeeded] == 0 || s[kNoiseSeeded] == 1)) bad_state("Invalid seeded flag.");
}

// The shard-count fields (kShardCounted ..): a flag, a key of four 32-bit
// words, a count of folded states and the two halves of their hash sum;
// all zero without the flag, no sum in a state never combined.
void validate_counts(const double* s) {
  if (!(s[kShardCounted] == 0 || s[kShardCounted] == 1)) bad_state("Invalid shard-count flag.");
  const bool counted = s[kShardCounted] == 1;
  for (int f = kShardKey; f <= kShardSumHigh; ++f) {
    const double v = s[f];
    if (!is_count(v)) bad_state("Invalid shard-count field.");
    if (f != kShardStates && v > 4294967295.0) bad_state("Invalid shard-count word.");
    if (!counted && v != 0) bad_state("Shard counts without the shard-count flag.");
  }
  if (s[kShardStates] == 0 && (s[kShardSumLow] != 0 || s[kShardSumHigh] != 0))
    bad_state("A shard-count sum in a state that was never combined.");
  // Only non-empty states are folded (an empty one is the combine's identity).
  if (s[kShardStates] != 0 && s[kRows] == 0) bad_state("Shard counts folded into a state without rows.");
}

sgd::CountKey count_key_of(const double* s) {
  sgd::CountKey k{};
  for (int i = 0; i < 4; ++i) {
    const auto w = static_cast<std::uint32_t>(s[kShardKey + i]);
    for (int j = 0; j < 4; ++j) k[4 * i + j] = static_cast<unsigned char>(w >> (8 * j));
  }
  return k;
}

// Stores `f` as the fingerprint of a combined state (kShardStates >= 1).
void store_fingerprint(double* s, const sgd::CountFingerprint& f) {
  s[kShardStates] = static_cast<double>(f.states);
  s[kShardSumLow] = static_cast<double>(f.sum & 0xffffffffu);
  s[kShardSumHigh] = static_cast<double>(f.sum >> 32);
}

}  // namespace

std::size_t state_length(int dim, int models, bool averaging) {
  return kHeaderSize + static_cast<std::size_t>(dim) * models * (averaging ? 3 : 2);
}

std::vector<double> make_state(const EpochConfig& c, const double* w, std::uint64_t updates,
                               const double* average, std::uint64_t averaged) {
  if (c.dim < 1) fail(ErrorKind::InvalidParameter, "the number of features must be at least 1");
  if (c.models < 1) fail(ErrorKind::InvalidParameter, "the number of models must be at least 1");
  if (static_cast<std::int64_t>(c.dim) * c.models > kMaxParameters)
    fail(ErrorKind::ProgramLimit, "model too large",
         std::to_string(c.models) + " models x " + std::to_string(c.dim) + " features exceed the limit of " +
             std::to_string(kMaxParameters) + " parameters.",
         "Reduce the dimension, e.g. with a random projection.");
  std::vector<double> s(state_length(c.dim, c.models, c.averaging), 0.0);
  s[kMagic] = kMagicValue;
  s[kVersion] = kVersionValue;
  s[kDim] = c.dim;
  s[kModels] = c.models;
  s[kLoss] = static_cast<int>(c.loss);
  s[kHuberH] = c.huber_h;
  s[kLambda] = c.lambda;
  s[kRadius] = c.radius;
  s[kFeatureBound] = c.feature_bound;
  s[kBatchSize] = static_cast<double>(c.batch_size);
  s[kSchedule] = static_cast<int>(c.schedule.kind);
  s[kEta] = c.schedule.eta;
  s[kBeta] = c.schedule.beta;
  s[kGamma] = c.schedule.gamma;
  s[kOffset] = c.schedule.offset;
  s[kUpdates] = static_cast<double>(updates);
  s[kAveraging] = c.averaging ? 1 : 0;
  s[kAveraged] = static_cast<double>(averaged);
  s[kNoiseKind] = static_cast<int>(c.noise);
  if (c.noise != privacy::BatchNoiseKind::None) {
    s[kNoiseScale] = c.noise_scale;
    s[kNoiseSeeded] = c.noise_seeded ? 1 : 0;
  }
  if (c.noise != privacy::BatchNoiseKind::None || c.sampled_batches)
    for (int i = 0; i < 8; ++i) s[kNoiseKey + i] = c.noise_key[i];
  s[kSampledBatches] = c.sampled_batches ? 1 : 0;
  if (c.count_shards) {
    s[kShardCounted] = 1;
    for (int i = 0; i < 4; ++i) {
      std::uint32_t w = 0;
      for (int j = 0; j < 4; ++j) w |= static_cast<std::uint32_t>(c.count_key[4 * i + j]) << (8 * j);
      s[kShardKey + i] = w;
    }
  }
  const std::size_t n = static_cast<std::size_t>(c.dim) * c.models;
  if (w) std::copy(w, w + n, s.begin() + kHeaderSize);
  if (c.averaging) {
    const double* src = average ? average : w;
    if (src) std::copy(src, src + n, s.begin() + kHeaderSize + 2 * n);
  }
  validate(s.data(), s.size());
  return s;
}

void validate_layout(const double* s, std::size_t len) {
  if (s == nullptr || len < kHeaderSize) bad_state("The state is shorter than its header.");
  if (s[kMagic] != kMagicValue || s[kVersion] != kVersionValue)
    bad_state("The state does not start with the dptrain magic number and version.");
  const double d = s[kDim], K = s[kModels];
  if (!(d >= 1 && std::floor(d) == d && K >= 1 && std::floor(K) == K && d * K <= kMaxParameters))
    bad_state("Invalid dimension or number of models.");
  if (!(s[kAveraging] == 0 || s[kAveraging] == 1)) bad_state("Invalid averaging flag.");
  if (len != state_length(static_cast<int>(d), static_cast<int>(K), s[kAveraging] == 1))
    bad_state("The state length does not match its dimension.");
  if (!(is_count(s[kBatchSize]) && s[kBatchSize] >= 1)) bad_state("Invalid batch size.");
  for (int f : {kUpdates, kRows, kPending, kAveraged})
    if (!is_count(s[f])) bad_state("Invalid counter.");
  if (!(s[kPending] < s[kBatchSize])) bad_state("Pending rows exceed the batch size.");
  if (!(s[kLoss] == 0 || s[kLoss] == 1)) bad_state("Unknown loss.");
  const double sk = s[kSchedule];
  if (!(sk >= 0 && sk <= 4 && std::floor(sk) == sk)) bad_state("Unknown step-size schedule.");
}

void validate(const double* s, std::size_t len) {
  validate_layout(s, len);
  if (!(s[kHuberH] > 0 && s[kHuberH] < 1)) bad_state("Invalid Huber parameter.");
  if (!(s[kLambda] >= 0 && std::isfinite(s[kLambda]))) bad_state("Invalid lambda.");
  if (!(s[kRadius] >= 0 && std::isfinite(s[kRadius]))) bad_state("Invalid radius.");
  if (!(s[kFeatureBound] > 0 && std::isfinite(s[kFeatureBound]))) bad_state("Invalid feature bound.");
  for (int f : {kEta, kBeta, kGamma, kOffset})
    if (!(s[f] >= 0 && std::isfinite(s[f]))) bad_state("Invalid step-size parameter.");
  const auto kind = static_cast<ScheduleKind>(static_cast<int>(s[kSchedule]));
  if ((kind == ScheduleKind::Constant || kind == ScheduleKind::InverseSqrt) && !(s[kEta] > 0))
    bad_state("The step size must be positive.");
  if (kind != ScheduleKind::Constant && kind != ScheduleKind::InverseSqrt && !(s[kBeta] > 0))
    bad_state("The smoothness constant must be positive.");
  if (kind == ScheduleKind::StronglyConvex && !(s[kGamma] > 0))
    bad_state("The strong-convexity constant must be positive.");
  if (!(s[kWeightScale] >= 0 && std::isfinite(s[kWeightScale])) ||
      !(s[kWeightNormSq] >= 0 && std::isfinite(s[kWeightNormSq])) ||
      (s[kWeightScale] == 0 && s[kWeightNormSq] != 0))
    bad_state("Invalid weight scale.");
  for (int f = kWeightNormSq + 1; f < kNoiseFirst; ++f)
    if (s[f] != 0) bad_state("Reserved header fields must be zero.");
  validate_noise(s);
  validate_counts(s);
  for (int f = kShardSumHigh + 1; f < kHeaderSize; ++f)
    if (s[f] != 0) bad_state("Reserved header fields must be zero.");
  for (std::size_t i = kHeaderSize; i < len; ++i)
    if (!std::isfinite(s[i])) bad_state("The model contains a non-finite value.");
  // Scaled weights (w = a v) must stay finite once written back.
  if (const double a = s[kWeightScale]; a != 0) {
    if (!(a >= kMinScale && a <= 1.0 / kMinScale)) bad_state("Invalid weight scale.");
    const std::size_t n = block(s);
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(a * s[kHeaderSize + i])) bad_state("The model contains a non-finite value.");
  }
}

EpochConfig config_of(const double* s) {
  EpochConfig c;
  c.dim = dim(s);
  c.models = models(s);
  c.loss = static_cast<LossKind>(static_cast<int>(s[kLoss]));
  c.huber_h = s[kHuberH];
  c.lambda = s[kLambda];
  c.radius = s[kRadius];
  c.feature_bound = s[kFeatureBound];
  c.batch_size = static_cast<std::int64_t>(s[kBatchSize]);
  c.schedule.kind = static_cast<ScheduleKind>(static_cast<int>(s[kSchedule]));
  c.schedule.eta = s[kEta];
  c.schedule.beta = s[kBeta];
  c.schedule.gamma = s[kGamma];
  c.schedule.offset = s[kOffset];
  c.averaging = averaging(s);
  c.noise = static_cast<privacy::BatchNoiseKind>(static_cast<int>(s[kNoiseKind]));
  c.noise_scale = s[kNoiseScale];
  c.noise_seeded = s[kNoiseSeeded] != 0;
  c.noise_key = key_words_of(s);
  c.sampled_batches = sampled(s);
  c.count_shards = counts_shards(s);
  c.count_key = count_key_of(s);
  return c;
}

bool same_run(const double* a, const double* b) {
  return std::memcmp(a, b, sizeof(double) * kUpdates) == 0 &&
         std::memcmp(a + kNoiseFirst, b + kNoiseFirst, sizeof(double) * (kSampledBatch - kNoiseFirst)) == 0 &&
         std::memcmp(a + kShardCounted, b + kShardCounted, sizeof(double) * (kShardStates - kShardCounted)) == 0;
}

sgd::CountFingerprint shard_fingerprint(const double* s) {
  if (!counts_shards(s)) fail(ErrorKind::Internal, "the fingerprint of shard counts of a state that does not count them");
  if (s[kShardStates] == 0) return sgd::shard_fingerprint(count_key_of(s), rows(s));
  sgd::CountFingerprint f;
  f.states = static_cast<std::uint64_t>(s[kShardStates]);
  f.sum = static_cast<std::uint64_t>(s[kShardSumLow]) | (static_cast<std::uint64_t>(s[kShardSumHigh]) << 32);
  return f;
}

void add_row(double* s, const double* x, std::int64_t len, double label) {
  if (sampled(s)) refuse_unsampled_rows();
  add_row_impl(s, x, len, label);
}

void add_row(double* s, const float* x, std::int64_t len, double label) {
  if (sampled(s)) refuse_unsampled_rows();
  add_row_impl(s, x, len, label);
}

namespace {

// Exact ||v||^2 of the scaled weights this often (in updates), so that the
// running sum the projection reads cannot drift (docs/sparse.md).
constexpr std::uint64_t kNormRefresh = 4096;

// Whether an update may be taken in O(nnz) with scaled weights.
bool lazy_update_allowed(const double* s) {
  return s[kBatchSize] == 1 && !noisy(s) && !averaging(s) && (models(s) == 1 || s[kRadius] == 0);
}

double exact_norm_sq(const double* s) { return ConstVec(weights(s), block(s)).squaredNorm(); }

// The update of a batch of one row with gradient coefficients c[k] (model
// k's gradient is c[k] x), in O(nnz), as step() does it densely:
//   w <- Pi_R((1 - eta lambda) w - eta c x).
// With w = a v: a <- a (1 - eta lambda); v <- v - (eta c / a) x (the new
// a); then, with a radius, a <- a R / ||a v|| if ||a v|| > R.
void lazy_update(double* s, const sparse::RowView& x, const double* c, double eta, double decay) {
  const int K = models(s);
  const int d = dim(s);
  const double radius = s[kRadius];
  const std::uint64_t t = updates(s) + 1;
  if (s[kWeightScale] == 0) {  // entering the scaled form: a = 1
    s[kWeightScale] = 1;
    s[kWeightNormSq] = 0;
  }
  if (radius > 0 && (s[kWeightNormSq] == 0 || t % kNormRefresh == 0)) s[kWeightNormSq] = exact_norm_sq(s);
  const double a = s[kWeightScale] * decay;
  double* v = weights(s);
  double norm_sq = s[kWeightNormSq];
  for (int k = 0; k < K; ++k) {
    if (c[k] == 0.0) continue;
    double* vk = v + static_cast<std::size_t>(k) * d;
    const double coef = -eta * c[k] / a;
    for (std::int32_t e = 0; e < x.nnz; ++e) {
      double& vj = vk[x.index[e]];
      const double old = vj;
      vj += coef * x.value[e];
      norm_sq += vj * vj - old * old;
    }
  }
  double scale = a;
  if (radius > 0) {
    norm_sq = std::max(norm_sq, 0.0);
    const double norm = scale * std::sqrt(norm_sq);  // K == 1 here (lazy_update_allowed)
    if (norm > radius) scale *= radius / norm;
  }
  s[kWeightScale] = scale;
  s[kWeightNormSq] = radius > 0 ? norm_sq : 0.0;
  s[kUpdates] = static_cast<double>(t);
  s[kPending] = 0;
  if (scale < kMinScale || scale > 1.0 / kMinScale) materialize(s);
}

}  // namespace

void add_sparse_row(double* s, const sparse::RowView& x, double label) {
  if (sampled(s)) refuse_unsampled_rows();
  const int d = dim(s);
  if (x.dim != d)
    throw Error(ErrorKind::InvalidData, "feature arrays have different lengths",
                "A row has " + std::to_string(x.dim) + " features, the training expects " + std::to_string(d) + ".",
                "Every row must have the same number of features.", sqlstate::kArraySubscriptError);
  const int K = models(s);
  // The same per-row clipping to ||x|| <= L_x as add_row_impl: the zeros a
  // sparse row leaves out add nothing to its squared norm.
  const double sq = sparse::squared_norm(x);
  if (!std::isfinite(sq))
    throw Error(ErrorKind::InvalidData, "feature values are too large",
                "The squared norm of a feature vector overflows a double.",
                "Scale the features (dptrain load normalizes rows to norm 1).", sqlstate::kFloatingPointException);
  const double scale = clipping_scale(s, sq);
  const auto loss = static_cast<LossKind>(static_cast<int>(s[kLoss]));
  const double h = s[kHuberH];
  check_label(label, K);

  // The step of this update, if it is taken lazily (decay > 0 keeps a > 0).
  double eta = 0, decay = 0;
  bool lazy = lazy_update_allowed(s);
  if (lazy) {
    StepSchedule schedule;
    schedule.kind = static_cast<ScheduleKind>(static_cast<int>(s[kSchedule]));
    schedule.eta = s[kEta];
    schedule.beta = s[kBeta];
    schedule.gamma = s[kGamma];
    schedule.offset = s[kOffset];
    eta = schedule.at(updates(s) + 1);
    decay = 1.0 - eta * s[kLambda];
    lazy = decay > 0;
  }
  if (!lazy) materialize(s);
  const double a = weight_scale(s);
  const double* w = weights(s);
  double* acc = accumulator(s);
  // Coefficients of the K gradients (c_k x), all at the same w_t.
  double c_small[8];
  std::vector<double> c_large;
  double* c = c_small;
  if (K > 8) {
    c_large.assign(static_cast<std::size_t>(K), 0.0);
    c = c_large.data();
  }
  const int cls = K == 1 ? 0 : static_cast<int>(label);
  for (int k = 0; k < K; ++k) {
    const double y = K == 1 ? (label > 0 ? 1.0 : -1.0) : (k == cls ? 1.0 : -1.0);
    const std::size_t off = static_cast<std::size_t>(k) * d;
    const double dot = a * sparse::dot(w + off, x) * scale;
    c[k] = loss_derivative(loss, y * dot, h) * y * scale;
  }
  s[kRows] += 1;
  if (lazy) {
    lazy_update(s, x, c, eta, decay);
    return;
  }
  for (int k = 0; k < K; ++k)
    if (c[k] != 0.0) sparse::axpy(c[k], x, acc + static_cast<std::size_t>(k) * d);
  s[kPending] += 1;
  if (s[kPending] >= s[kBatchSize]) step(s);
}

// The very test add_row_impl applies (a NaN or infinite value makes the sum non-finite too).
bool usable_features(const double* x, std::int64_t len) { return std::isfinite(squared_norm(x, len)); }

void add_sampled_row(double* s, const double* x, std::int64_t len, double label, std::int64_t batch) {
  if (!sampled(s))
    fail(ErrorKind::InvalidState, "this training state does not take sampled batches", {},
         "Feed permutation epochs through dptrain.sgd_epoch.");
  // A new batch may only start when the previous one is complete (exactly
  // b rows), and batches are numbered 1, 2, ... in order: the aggregate
  // must see each sampled batch as one contiguous run of b rows.
  const double current = s[kSampledBatch];
  if (s[kPending] == 0) {
    if (static_cast<double>(batch) != current + 1)
      fail(ErrorKind::InvalidState, "sampled batches arrived out of order",
           "Expected batch " + std::to_string(static_cast<std::int64_t>(current) + 1) + ", got " +
               std::to_string(batch) + ".",
           "The epoch query must feed the batches of dptrain.sampled_rows in order.");
    s[kSampledBatch] = current + 1;
  } else if (static_cast<double>(batch) != current) {
    fail(ErrorKind::InvalidState, "a sampled batch ended early",
         "Batch " + std::to_string(static_cast<std::int64_t>(current)) + " had " +
             std::to_string(static_cast<std::int64_t>(s[kPending])) + " of " +
             std::to_string(static_cast<std::int64_t>(s[kBatchSize])) + " rows when batch " + std::to_string(batch) +
             " started.",
         "Was the training table modified during training?");
  }
  add_row_impl(s, x, len, label);
}

void flush(double* s) {
  materialize(s);
  if (s[kPending] == 0) return;
  if (sampled(s))
    fail(ErrorKind::Internal, "the last sampled batch is incomplete",
         std::to_string(static_cast<std::int64_t>(s[kPending])) + " of " +
             std::to_string(static_cast<std::int64_t>(s[kBatchSize])) + " rows.",
         "Was the training table modified during training?");
  step(s);
}

void combine(double* a, std::size_t a_len, const double* b, std::size_t b_len) {
  if (a_len != b_len || !same_run(a, b)) bad_state("Cannot combine states of different training configurations.");
  if (noisy(a) || sampled(a)) {
    // Only the identity: an empty partial state. Nothing is flushed here, so
    // no noise is ever drawn in a combine function.
    if (b[kRows] == 0) return;
    if (a[kRows] == 0) {
      std::copy(b, b + b_len, a);
      return;
    }
    fail(ErrorKind::InvalidState, "white-box training states cannot be combined",
         "SCS13 and BST14 add noise inside one sequential pass; partial states of parallel workers or "
         "partitions are not covered by their privacy analysis.",
         "Run the epoch over a temporary table (dp_train and dptrain train do), without parallel aggregation.");
  }
  // On a distributed table, each state never combined is one shard's: its
  // row count joins the fingerprint of the multiset (sgd/shard_counts.h),
  // taken before anything below changes either state.
  sgd::CountFingerprint counts;
  if (counts_shards(a)) {
    counts = shard_fingerprint(a);
    counts.add(shard_fingerprint(b));
  }
  // Partial states from parallel workers arrive with their last mini-batch
  // still pending: apply it first (sum divided by b, as everywhere).
  flush(a);
  std::vector<double> b_flushed;
  if (b[kPending] != 0 || b[kWeightScale] != 0) {
    b_flushed.assign(b, b + b_len);
    flush(b_flushed.data());
    b = b_flushed.data();
  }
  const double na = a[kRows], nb = b[kRows];
  if (nb == 0) return;
  if (na == 0) {
    std::copy(b, b + b_len, a);
    return;
  }
  // Count-weighted model averaging (weights proportional to partition sizes).
  const std::size_t data = a_len - kHeaderSize;
  Vec av(a + kHeaderSize, data);
  av = (na * av + nb * ConstVec(b + kHeaderSize, data)) / (na + nb);
  a[kRows] = na + nb;
  a[kUpdates] = std::max(a[kUpdates], b[kUpdates]);
  a[kAveraged] = std::max(a[kAveraged], b[kAveraged]);
  if (counts_shards(a)) store_fingerprint(a, counts);  // two non-empty states: kShardStates >= 2
}

}  // namespace dptrain::epoch_state
