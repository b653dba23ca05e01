// A one-line progress bar on stderr, drawn only when stderr is a terminal.
#pragma once

#include <chrono>
#include <string>

namespace dptrain::client {

class ProgressBar {
 public:
  // total <= 0: no bar (train and tune pass 0 for --json). It used to draw
  // "label [....] 0/1" anyway and never end the line, so on a terminal the
  // JSON of `dptrain train --json | jq` was printed after a stray bar.
  ProgressBar(std::string label, int total);
  void update(int done);  // redraws "label [#####.....] done/total  elapsed"
  void finish();          // ends the line
  // Ends the line at `done` steps: a run that stops before its budget of steps
  // (AMP, DP-AGD, tolerance) shows done/done, not done/budget.
  void finish_at(int done);
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  int total_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace dptrain::client
