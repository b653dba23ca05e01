// dptrain: differentially private machine learning inside PostgreSQL.
#include <iostream>

#include "commands.h"
#include "cli_hints.h"
#include "number_flags.h"
#include "core/error.h"
#include "pg_connection.h"

int main(int argc, char** argv) {
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const dptrain::client::PgError& e) {
    if (dptrain::client::interrupted()) {
      std::cerr << "dptrain: cancelled: " << e.what() << " (nothing was stored)\n";
      return 130;
    }
    std::cerr << "dptrain: error: " << e.what();
    if (!e.sqlstate.empty()) std::cerr << " (SQLSTATE " << e.sqlstate << ")";
    std::cerr << "\n";
    if (!e.detail.empty()) std::cerr << "DETAIL:  " << e.detail << "\n";
    if (!e.hint.empty()) std::cerr << "HINT:  " << dptrain::client::cli_syntax(e.hint) << "\n";
    return 1;
  } catch (const dptrain::Error& e) {
    if (dptrain::client::interrupted()) {  // e.g. OPDisc's solve, stopped in the controller
      std::cerr << "dptrain: cancelled: " << e.what() << " (nothing was stored)\n";
      return 130;
    }
    std::cerr << "dptrain: error: " << e.what() << "\n";
    if (!e.detail().empty()) std::cerr << "DETAIL:  " << e.detail() << "\n";
    if (!e.hint().empty()) std::cerr << "HINT:  " << dptrain::client::cli_syntax(e.hint()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "dptrain: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
