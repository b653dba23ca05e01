#include "core/privacy/batch_noise.h"

#include <vector>

#include "core/error.h"
#include "core/privacy/samplers.h"

namespace dptrain::privacy {

const char* batch_noise_name(BatchNoiseKind kind) {
  switch (kind) {
    case BatchNoiseKind::None: return "none";
    case BatchNoiseKind::Gaussian: return "gaussian";
    case BatchNoiseKind::L2Laplace: return "l2_laplace";
  }
  return "?";
}

std::uint64_t noise_nonce(std::uint64_t t) {
  if (t == 0 || t >= kSamplingNonceBit) fail(ErrorKind::Internal, "noise nonce out of range");
  return t;
}

std::uint64_t lot_nonce(std::uint64_t t) {
  if (t == 0 || t >= kLotNonceBit) fail(ErrorKind::Internal, "lot number out of range for a sampling nonce");
  return kLotNonceBit | t;
}

std::uint64_t sampling_nonce(std::uint64_t epoch_start_updates) {
  if (epoch_start_updates >= kSamplingNonceBit)
    fail(ErrorKind::Internal, "update counter out of range for a sampling nonce");
  return kSamplingNonceBit | epoch_start_updates;
}

void require_batch_noise_scale(BatchNoiseKind kind, double scale, std::size_t n) {
  switch (kind) {
    case BatchNoiseKind::None: return;
    case BatchNoiseKind::Gaussian: require_drawable_gaussian(scale); return;
    case BatchNoiseKind::L2Laplace: require_drawable_l2_laplace(scale, n); return;
  }
  fail(ErrorKind::Internal, "unknown batch noise kind");
}

void add_batch_noise(BatchNoiseKind kind, double scale, const RandomSource::Key& key, std::uint64_t t,
                     double* out, std::size_t n) {
  if (kind == BatchNoiseKind::None) return;
  RandomSource rng = RandomSource::from_key(key, noise_nonce(t));
  switch (kind) {
    case BatchNoiseKind::None: return;
    case BatchNoiseKind::Gaussian: add_gaussian_noise(rng, out, n, scale); return;
    case BatchNoiseKind::L2Laplace: {
      thread_local std::vector<double> scratch;
      if (scratch.size() < n) scratch.resize(n);
      add_l2_laplace_noise(rng, out, n, scale, scratch.data());
      return;
    }
  }
  fail(ErrorKind::Internal, "unknown batch noise kind");
}

}  // namespace dptrain::privacy
