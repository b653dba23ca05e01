// Random draws shared by the empirical sensitivity tests (bolton_ and
// distributed_sensitivity_empirical_test.cpp): the step schedules of the
// Bolt-on bounds and the differing row of a neighbouring dataset.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "core/sgd/step_schedule.h"
#include "psgd_runner.h"

namespace dptrain::test {

struct Draw {
  std::mt19937_64& gen;
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); }
  bool coin(double p) { return uniform(0, 1) < p; }
};

// A schedule of `kind` for a loss of smoothness beta on m rows: a constant
// step up to 2/beta (convex, Cor. 1) or 1/beta (strongly convex, Lemma 7),
// often exactly at the limit; c/(t + offset) or c/sqrt(t + offset) with an
// offset up to m^0.9 (Cor. 2, 3); the strongly convex one (Lemma 8).
inline void draw_schedule(Draw& d, ScheduleKind kind, bool strongly, double smoothness, int m, StepSchedule* s) {
  s->kind = kind;
  if (kind == ScheduleKind::Constant)
    s->eta = (d.coin(0.3) ? 1.0 : d.uniform(0.01, 1.0)) * (strongly ? 1.0 : 2.0) / smoothness;
  if (kind == ScheduleKind::Decreasing || kind == ScheduleKind::Sqrt)
    s->offset = std::pow(static_cast<double>(m), d.uniform(0.0, 0.9));
}

// Replaces row `i` of (x, y), in place: by its mirror image or by a fresh
// random point (norm below 1.3, as the rows), each half the time; its label
// by another one (-y, or the next of `models` classes).
inline void replace_row(Draw& d, int i, int dim, int models, std::vector<std::vector<double>>& x,
                        std::vector<double>& y) {
  if (d.coin(0.5)) {
    for (double& v : x[i]) v = -v;
  } else {
    x[i] = random_point(d.gen, dim, 1.3);
  }
  y[i] = models == 1 ? -y[i] : (y[i] + 1 == models ? 0 : y[i] + 1);
}

}  // namespace dptrain::test
