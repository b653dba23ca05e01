// One BENCH-RATIO line for make bench's summary of issue 18's targets
// (the format: bench/lib/bench_ratio.py; the table: bench/lib/target_summary.py).
#pragma once

#include <iostream>
#include <sstream>
#include <string>

namespace dptrain::bench {

// The line, with its newline. target: "<= 1.5", ">= 2" or "" (no number given by the issue).
inline std::string ratio_line(const std::string& item, const std::string& bench, const std::string& what, double ratio,
                              const std::string& target, const std::string& baseline) {
  std::ostringstream line;
  line.precision(4);
  line << "BENCH-RATIO\t" << item << '\t' << bench << '\t' << what << '\t' << ratio << '\t' << target << '\t'
       << baseline << '\n';
  return line.str();
}

inline void emit_ratio(const std::string& item, const std::string& bench, const std::string& what, double ratio,
                       const std::string& target, const std::string& baseline) {
  std::cout << ratio_line(item, bench, what, ratio, target, baseline) << std::flush;
}

}  // namespace dptrain::bench
