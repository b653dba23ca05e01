// bench/hessian_block: what the Hessian block of the gradient state
// (src/core/engine/gradient_state.h) saves per row, against a baseline
// measured in the same run.
//
//   build/bench/hessian_block [--rows N] [--repeat R]
//
// For d = 16, 32, 54 and 100 (binary logistic, rows of norm ~1), it times,
// per row, best of R runs of N rows:
//   gradient only   add_row of a loss + gradient request (what every pass pays);
//   + rank-one      the same plus l''(z) x x^T added row by row to the upper
//                   triangle (the per-row update the state did before the block);
//   + block         add_row of a request with the Hessian (the block, flushed
//                   every kHessianBlockRows rows and once at the end);
// and prints the Hessian's own cost (time minus "gradient only") both ways
// and their ratio. Below d = kHessianBlockMinDim the state has no block and
// "+ block" is the same rank-one update: that line's ratio shows the noise.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/engine/gradient_state.h"

namespace gs = dptrain::gradient_state;

namespace {

template <typename Body>
double seconds_per_row(int rows, int repeat, Body&& body) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best / rows;
}

// The per-row update the state made before the block: the upper triangle of
// c x x^T, one row at a time.
void rank_one(double* H, const double* x, double c, int d) {
  for (int i = 0; i < d; ++i) {
    const double ci = c * x[i];
    for (int j = i; j < d; ++j) H[static_cast<std::size_t>(i) * d + j] += ci * x[j];
  }
}

void run(int d, int rows, int repeat) {
  std::mt19937_64 gen(static_cast<std::uint64_t>(d));
  std::normal_distribution<double> g(0, 1 / std::sqrt(static_cast<double>(d)));
  std::vector<double> X(static_cast<std::size_t>(rows) * d), w(static_cast<std::size_t>(d));
  for (double& v : X) v = g(gen);
  for (double& v : w) v = g(gen);
  gs::Request r;
  r.dim = d;
  r.want = gs::kLossSums | gs::kGradient;
  gs::Request rh = r;
  rh.want |= gs::kHessian;
  std::vector<double> H(static_cast<std::size_t>(d) * d);
  double sink = 0;
  const double gradient_only = seconds_per_row(rows, repeat, [&] {
    std::vector<double> s = gs::make_state(r, w.data());
    for (int i = 0; i < rows; ++i) gs::add_row(s.data(), &X[static_cast<std::size_t>(i) * d], d, i % 2);
    sink += gs::loss_sum(s.data(), 0, 0);
  });
  const double with_rank_one = seconds_per_row(rows, repeat, [&] {
    std::vector<double> s = gs::make_state(r, w.data());
    std::fill(H.begin(), H.end(), 0.0);
    for (int i = 0; i < rows; ++i) {
      const double* x = &X[static_cast<std::size_t>(i) * d];
      gs::add_row(s.data(), x, d, i % 2);
      double z = 0;
      for (int j = 0; j < d; ++j) z += w[j] * x[j];
      rank_one(H.data(), x, dptrain::loss_second_derivative(dptrain::LossKind::Logistic, z, 0.1), d);
    }
    sink += H[1];
  });
  const double with_block = seconds_per_row(rows, repeat, [&] {
    std::vector<double> s = gs::make_state(rh, w.data());
    for (int i = 0; i < rows; ++i) gs::add_row(s.data(), &X[static_cast<std::size_t>(i) * d], d, i % 2);
    sink += gs::hessian_sum(s.data(), 0)[1];  // reads (adds) the rows still waiting
  });
  const double old_cost = with_rank_one - gradient_only, new_cost = with_block - gradient_only;
  std::printf("d = %3d  gradient only %7.1f ns/row  + rank-one %7.1f  + block %7.1f  "
              "Hessian: %7.1f -> %7.1f ns/row (%.2fx)  whole row %.2fx%s\n",
              d, 1e9 * gradient_only, 1e9 * with_rank_one, 1e9 * with_block, 1e9 * old_cost, 1e9 * new_cost,
              old_cost / new_cost, with_rank_one / with_block, d < gs::kHessianBlockMinDim ? "  (no block: noise)" : "");
  if (sink == 0.12345) std::printf(" ");  // keeps the sums alive
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"the Hessian block of the gradient state vs the per-row rank-one update"};
  int rows = 50000, repeat = 5;
  app.add_option("--rows", rows, "rows per run")->check(CLI::PositiveNumber);
  app.add_option("--repeat", repeat, "runs; the best counts")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  std::printf("Hessian block (%d rows per block): best of %d runs of %d rows\n", gs::kHessianBlockRows, repeat, rows);
  for (int d : {16, 32, 54, 100}) run(d, rows, repeat);
  return 0;
}
