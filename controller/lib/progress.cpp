#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace dptrain::client {

ProgressBar::ProgressBar(std::string label, int total)
    : label_(std::move(label)), total_(total > 0 ? total : 1), enabled_(total > 0 && isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {
  update(0);
}

void ProgressBar::update(int done) {
  if (!enabled_) return;
  constexpr int kWidth = 30;
  const int filled = done * kWidth / total_;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '.');
  std::fprintf(stderr, "\r%s [%s] %d/%d  %.1fs", label_.c_str(), bar.c_str(), done, total_, secs);
  std::fflush(stderr);
}

void ProgressBar::finish_at(int done) {
  if (done > 0 && done < total_) total_ = done;
  update(done);
  finish();
}

void ProgressBar::finish() {
  if (enabled_) std::fprintf(stderr, "\n");
}

}  // namespace dptrain::client
