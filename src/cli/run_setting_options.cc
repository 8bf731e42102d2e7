#include "cli/run_setting_options.h"

#include <fmt/format.h>

namespace openrecipes::cli {

std::vector<CLI::Option*> add_run_setting_options(CLI::App& command, RunSettingArguments& settings,
                                                  const char* note) {
  auto describe = [&](const char* setting, const char* by_default) {
    return fmt::format("{} (default {}){}", setting, by_default, note);
  };
  std::vector<CLI::Option*> options = {
      command.add_option("--moe-flex-dispatcher-backend", settings.flex_backend,
                         describe("The flex dispatcher's backend: deepep or hybridep", "deepep"))};
  for (const RunSwitch& s : run_switches())
    options.push_back(command.add_flag(s.flag, settings.*s.given, describe(s.help, s.by_default)));
  return options;
}

}  // namespace openrecipes::cli
