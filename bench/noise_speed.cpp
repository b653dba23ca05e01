// bench/noise_speed: the cost of the white-box per-batch noise (docs/whitebox.md):
// one fresh ChaCha20 stream per update (nonce t) and a d-dimensional noise
// vector added to the batch's gradient sum, exactly as the epoch aggregate
// does it at the end of every mini-batch.
//
//   build/bench/noise_speed [--batches N] [--repeat R]
//
// Prints, for Gaussian and L2-Laplace noise at d = 54 (Forest Covertype) and
// d = 784 (MNIST), the time per batch and per coordinate (best of R runs of N
// batches; the best run is the one least disturbed by other processes), and
// the cost of one normal and of the raw keystream in a long stream, which
// bound what a batch can cost.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "core/privacy/batch_noise.h"
#include "core/privacy/random_source.h"
#include "core/privacy/samplers.h"

namespace privacy = dptrain::privacy;

namespace {

privacy::RandomSource::Key bench_key() {
  privacy::RandomSource::Key k{};
  for (int i = 0; i < 32; ++i) k[i] = static_cast<unsigned char>(17 * i + 3);
  return k;
}

// Best-of-`repeat` seconds per batch of `body(t)` over `batches` updates.
template <typename Body>
double seconds_per_batch(long batches, int repeat, Body&& body) {
  double best = 1e300;
  std::uint64_t t = 1;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < batches; ++i) body(t++);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best / static_cast<double>(batches);
}

void print_row(const char* path, const char* kind, std::size_t d, double sec, double checksum) {
  std::printf("%-34s %-11s d=%-4zu %9.1f ns/batch %7.2f ns/coord   (checksum %.3g)\n", path, kind, d, sec * 1e9,
              sec * 1e9 / static_cast<double>(d), checksum);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"per-batch noise cost"};
  long batches = 200000;
  int repeat = 5;
  app.add_option("--batches", batches, "batches per run")->check(CLI::PositiveNumber);
  app.add_option("--repeat", repeat, "runs; the best is reported")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  const privacy::RandomSource::Key key = bench_key();
  for (std::size_t d : {std::size_t{54}, std::size_t{784}}) {
    const long n = std::max(1000L, static_cast<long>(batches * 54 / d));
    std::vector<double> acc(d, 0.0);

    double sec = seconds_per_batch(n, repeat, [&](std::uint64_t t) {
      privacy::add_batch_noise(privacy::BatchNoiseKind::Gaussian, 1.0, key, t, acc.data(), d);
    });
    print_row("add_batch_noise", "gaussian", d, sec, acc[0]);
    sec = seconds_per_batch(n, repeat, [&](std::uint64_t t) {
      privacy::add_batch_noise(privacy::BatchNoiseKind::L2Laplace, 1.0, key, t, acc.data(), d);
    });
    print_row("add_batch_noise", "l2_laplace", d, sec, acc[0]);
  }

  // One long stream: the normal alone, and the keystream alone (8 bytes per normal).
  const long values = batches * 54;
  auto rng = privacy::RandomSource::from_key(key, 1);
  std::vector<double> block(1024);
  double sec = seconds_per_batch(values / 1024, repeat, [&](std::uint64_t) {
    privacy::fill_standard_normal(rng, block.data(), block.size());
  });
  std::printf("%-34s %7.2f ns/value  (checksum %.3g)\n", "fill_standard_normal, one stream", sec * 1e9 / 1024,
              block[0]);
  std::uint64_t x = 0;
  sec = seconds_per_batch(values / 1024, repeat, [&](std::uint64_t) {
    for (int i = 0; i < 1024; ++i) x ^= rng.next_u64();
  });
  std::printf("%-34s %7.2f ns/value  (checksum %.3g)\n", "next_u64, one stream", sec * 1e9 / 1024,
              static_cast<double>(x >> 11));
  return 0;
}
