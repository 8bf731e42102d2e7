// The shell reader (runs/shell_reader.h) on any bytes as a bash script. It never fails, so the
// checks are that it returns, and that every line it names lies inside the text.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "runs/shell_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  std::string_view text = fuzz::as_text(data, size);
  const int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  ShellScript script = read_shell_script(text);
  for (const ShellCommand& command : script.commands) {
    fuzz::check(command.line >= 1 && command.line <= lines, "read_shell_script: command line");
  }
  for (const ShellWarning& warning : script.warnings) {
    fuzz::check(warning.line >= 1 && warning.line <= lines, "read_shell_script: warning line");
  }
  return 0;
}
