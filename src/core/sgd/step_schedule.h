// Step-size schedules of permutation SGD. t counts *updates* (mini-batch
// steps) across all epochs and starts at 1 (Bolt-on §3.2 notation).
#pragma once

#include <cstdint>
#include <string>

namespace dptrain {

enum class ScheduleKind {
  Constant = 0,        // eta_t = eta                                   (Bolt-on Alg. 1)
  StronglyConvex = 1,  // eta_t = min(1/beta, 1/(gamma t))               (Bolt-on Alg. 2)
  Decreasing = 2,      // eta_t = 2 / (beta (t + m^c))                   (Bolt-on Cor. 2)
  Sqrt = 3,            // eta_t = 2 / (beta (sqrt(t) + m^c))             (Bolt-on Cor. 3)
  InverseSqrt = 4,     // eta_t = eta / sqrt(t)                          (SCS13 convex)
};

ScheduleKind parse_schedule(const std::string& name);  // constant|strongly_convex|decreasing|sqrt|inverse_sqrt
std::string schedule_name(ScheduleKind kind);

struct StepSchedule {
  ScheduleKind kind = ScheduleKind::Constant;
  double eta = 0.0;     // Constant, InverseSqrt
  double beta = 0.0;    // StronglyConvex, Decreasing, Sqrt
  double gamma = 0.0;   // StronglyConvex
  double offset = 0.0;  // m^c of Decreasing and Sqrt

  double at(std::uint64_t t) const;  // t >= 1
};

}  // namespace dptrain
