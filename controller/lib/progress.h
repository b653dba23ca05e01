// A one-line progress bar on stderr, drawn only when stderr is a terminal.
#pragma once

#include <chrono>
#include <string>

namespace dptrain::client {

class ProgressBar {
 public:
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
