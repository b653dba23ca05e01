#include "core/sgd/step_schedule.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace dptrain {

ScheduleKind parse_schedule(const std::string& name) {
  if (name == "constant") return ScheduleKind::Constant;
  if (name == "strongly_convex") return ScheduleKind::StronglyConvex;
  if (name == "decreasing") return ScheduleKind::Decreasing;
  if (name == "sqrt") return ScheduleKind::Sqrt;
  if (name == "inverse_sqrt") return ScheduleKind::InverseSqrt;
  fail(ErrorKind::InvalidParameter, "unknown step-size schedule \"" + name + "\"", {},
       "Use constant, strongly_convex, decreasing, sqrt or inverse_sqrt.");
}

std::string schedule_name(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::Constant: return "constant";
    case ScheduleKind::StronglyConvex: return "strongly_convex";
    case ScheduleKind::Decreasing: return "decreasing";
    case ScheduleKind::Sqrt: return "sqrt";
    case ScheduleKind::InverseSqrt: return "inverse_sqrt";
  }
  return "?";
}

double StepSchedule::at(std::uint64_t t) const {
  const double td = static_cast<double>(std::max<std::uint64_t>(t, 1));
  switch (kind) {
    case ScheduleKind::Constant: return eta;
    case ScheduleKind::StronglyConvex: return std::min(1.0 / beta, 1.0 / (gamma * td));
    case ScheduleKind::Decreasing: return 2.0 / (beta * (td + offset));
    case ScheduleKind::Sqrt: return 2.0 / (beta * (std::sqrt(td) + offset));
    case ScheduleKind::InverseSqrt: return eta / std::sqrt(td);
  }
  return 0.0;
}

}  // namespace dptrain
