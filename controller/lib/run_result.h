// The result of a run that stored a model, printed on stdout without being
// lost silently.
//
// By the time train or tune prints its result, the model is stored and a
// private run is charged. The result used to go to std::cout unchecked:
// with stdout on a full disk (`--json > out.json`) the CLI exited 0 having
// printed nothing, and with stdout a pipe closed early (`| head -0`, a
// consumer that died) SIGPIPE killed it without a word -- the user never
// learned the model's id or that the budget was spent. Now SIGPIPE is
// ignored while the result is written, and a failed write is an error
// (status 1) whose message carries the one-line summary.
#pragma once

#include <string>

namespace dptrain::client {

// Writes `text` to stdout and flushes it; throws std::runtime_error
// naming the reason and `summary` (e.g. "model 12 was stored: ...") if it
// could not.
void print_run_result(const std::string& text, const std::string& summary);

// Called by train and tune before they connect: a reader of stdout or
// stderr that goes away in the middle of the run (`dptrain train 2>&1 |
// head -1`) no longer kills the CLI by SIGPIPE at its next NOTICE. The CLI
// died after the run's charge and the run ended with it (charged, nothing
// stored); now the lost lines are dropped, the run goes on and stores its
// model, and a result that cannot be written is an error naming it.
void keep_running_if_output_closes();

}  // namespace dptrain::client
