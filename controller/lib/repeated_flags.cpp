#include "repeated_flags.h"

namespace dptrain::client {

void refuse_repeated_flags(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    const bool flag = o->get_expected_max() == 0;
    if (flag && o != app.get_help_ptr() && o != app.get_help_all_ptr() && o->get_name() != "--version")
      o->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_repeated_flags(*sub);
}

std::string usage_error_message(const CLI::App* app, const CLI::Error& e) {
  // CLI::ArgumentMismatch::AtMost(name, 1, received): "NAME: At Most 1 required but received N".
  const std::string text = e.what(), at_most = ": At Most 1 required but received ";
  const std::size_t at = text.find(at_most);
  if (e.get_name() != "ArgumentMismatch" || at == std::string::npos) return CLI::FailureMessage::simple(app, e);
  return text.substr(0, at) + ": given " + text.substr(at + at_most.size()) + " times; give it once\n";
}

}  // namespace dptrain::client
