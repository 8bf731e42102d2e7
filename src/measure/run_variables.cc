#include "measure/run_variables.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "runs/shell_reader.h"

namespace openrecipes {
namespace {

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void add(std::vector<RunVariable>& out, RunVariable variable) {
  auto same = std::find_if(out.begin(), out.end(),
                           [&](const RunVariable& v) { return v.name == variable.name; });
  if (same == out.end()) {
    out.push_back(std::move(variable));
  } else {
    same->array = same->array || variable.array;
  }
}

// The names `$NAME`, `${NAME...}` and `${#NAME}` of `text` (a word kept as written).
void add_names(const std::string& text, int line, std::vector<RunVariable>& out) {
  for (std::size_t at = text.find('$'); at != std::string::npos; at = text.find('$', at + 1)) {
    std::size_t begin = at + 1;
    bool braced = begin < text.size() && text[begin] == '{';
    if (braced) ++begin;
    if (braced && begin < text.size() && text[begin] == '#') ++begin;
    if (begin >= text.size() || !name_start(text[begin])) continue;
    std::size_t end = begin;
    while (end < text.size() && name_char(text[end])) ++end;
    bool array = braced && text.compare(end, 4, "[@]}") == 0;
    add(out, {text.substr(begin, end - begin), line, array});
  }
}

}  // namespace

std::vector<RunVariable> variables_read(std::string_view run) {
  ShellScript script = read_shell_script(run);
  std::vector<RunVariable> out;
  for (const ShellCommand& command : script.commands) {
    for (const ShellWord& word : command.words) {
      if (!word.opaque_array.empty()) {
        add(out, {word.opaque_array, word.line, true});
      } else if (word.unevaluated) {
        add_names(word.text, word.line, out);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RunVariable& a, const RunVariable& b) { return a.line < b.line; });
  return out;
}

bool set_in_every_job(std::string_view name) {
  static constexpr std::array<std::string_view, 16> kShell = {
      "HOME",   "PATH",    "PWD",    "OLDPWD", "USER", "LOGNAME", "HOSTNAME", "SHELL",
      "RANDOM", "SECONDS", "LINENO", "UID",    "EUID", "PPID",    "BASHPID",  "IFS"};
  if (name.rfind("SLURM_", 0) == 0 || name.rfind("BASH_", 0) == 0) return true;
  return std::find(kShell.begin(), kShell.end(), name) != kShell.end();
}

}  // namespace openrecipes
