#include "model_reference.h"

#include <cstdio>

namespace dptrain::cli {

std::string format_delta(const std::string& delta) {
  if (delta.empty()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", std::stod(delta));
  return buf;
}

std::string format_privacy(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace dptrain::cli
