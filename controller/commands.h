// Subcommands of the dptrain CLI; each lives in its own cmd_<name>.cpp and
// registers itself on the application here.
#pragma once

#include <CLI/CLI.hpp>

namespace dptrain::cli {

void register_train(CLI::App& app);
void register_eval(CLI::App& app);
void register_load(CLI::App& app);
void register_privacy(CLI::App& app);
void register_tune(CLI::App& app);
void register_models(CLI::App& app);
void register_predict(CLI::App& app);
void register_export(CLI::App& app);
void register_budget(CLI::App& app);

}  // namespace dptrain::cli
