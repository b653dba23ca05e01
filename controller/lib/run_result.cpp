#include "run_result.h"

#include <signal.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace dptrain::client {

void keep_running_if_output_closes() { signal(SIGPIPE, SIG_IGN); }

void print_run_result(const std::string& text, const std::string& summary) {
  keep_running_if_output_closes();  // a closed pipe: EPIPE, reported below, not a silent death
  errno = 0;
  std::cout << text << std::flush;
  if (std::cout) return;
  const int error = errno;
  throw std::runtime_error("could not write the result to standard output" +
                           (error ? " (" + std::string(std::strerror(error)) + ")" : std::string()) + "; " +
                           summary);
}

}  // namespace dptrain::client
