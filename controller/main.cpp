// dptrain: differentially private machine learning inside PostgreSQL.
#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "charge_report.h"
#include "commands.h"
#include "cli_hints.h"
#include "number_flags.h"
#include "core/error.h"
#include "pg_connection.h"
#include "repeated_flags.h"
#include "standard_descriptors.h"

namespace {

// After Ctrl-C, SIGTERM or SIGHUP: the run rolled back, but a charge made
// before it stays -- the failure note (charge_report.h) says so, instead of
// the "nothing was stored" this printed alone.
int cancelled(const char* what) {
  const std::string& note = dptrain::client::failure_note();
  std::cerr << "dptrain: cancelled: " << what << (note.empty() ? " (nothing was stored)" : "") << "\n" << note;
  return dptrain::client::interrupt_exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  if (!dptrain::client::keep_standard_descriptors_taken()) return 1;  // standard_descriptors.h
  CLI::App app{"dptrain: differentially private model training inside PostgreSQL"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dptrain 0.2");
  dptrain::cli::register_train(app);
  dptrain::cli::register_eval(app);
  dptrain::cli::register_load(app);
  dptrain::cli::register_privacy(app);
  dptrain::cli::register_tune(app);
  dptrain::cli::register_models(app);
  dptrain::cli::register_predict(app);
  dptrain::cli::register_export(app);
  dptrain::cli::register_budget(app);
  dptrain::client::check_number_flags(app);  // --seed 99999999999999999999 is refused, not clamped
  dptrain::client::refuse_repeated_flags(app);  // --json --json is refused, as --epsilon 1 --epsilon 2
  app.failure_message(dptrain::client::usage_error_message);
  try {
    app.parse(argc, argv);
    // What went to stdout must have arrived: `dptrain export > model.json`
    // on a full disk exited 0 with a truncated document (and so did every
    // other command's output). A closed pipe still ends the CLI by SIGPIPE,
    // as for any tool; train and tune report even that (run_result.h).
    errno = 0;
    if (!(std::cout << std::flush)) {
      std::cerr << "dptrain: error: could not write to standard output"
                << (errno ? std::string(" (") + std::strerror(errno) + ")" : std::string()) << "\n";
      return 1;
    }
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error 2, as documented
    // (README.md, "The CLI: exit status and output"), not CLI11's own 105-114 per kind of error.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const dptrain::client::PgError& e) {
    if (dptrain::client::interrupted()) return cancelled(e.what());
    std::cerr << "dptrain: error: " << e.what();
    if (!e.sqlstate.empty()) std::cerr << " (SQLSTATE " << e.sqlstate << ")";
    std::cerr << "\n";
    if (!e.detail.empty()) std::cerr << "DETAIL:  " << e.detail << "\n";
    if (!e.hint.empty()) std::cerr << "HINT:  " << dptrain::client::cli_syntax(e.hint) << "\n";
    std::cerr << dptrain::client::failure_note();
    return 1;
  } catch (const dptrain::Error& e) {
    if (dptrain::client::interrupted()) return cancelled(e.what());  // e.g. OPDisc's solve, stopped in the controller
    std::cerr << "dptrain: error: " << e.what() << " (SQLSTATE " << dptrain::sqlstate_of(e) << ")\n";
    if (!e.detail().empty()) std::cerr << "DETAIL:  " << e.detail() << "\n";
    if (!e.hint().empty()) std::cerr << "HINT:  " << dptrain::client::cli_syntax(e.hint()) << "\n";
    std::cerr << dptrain::client::failure_note();
    return 1;
  } catch (const std::exception& e) {
    if (dptrain::client::interrupted()) return cancelled(e.what());
    std::cerr << "dptrain: error: " << e.what() << "\n";
    std::cerr << dptrain::client::failure_note();
    return 1;
  }
  return 0;
}
