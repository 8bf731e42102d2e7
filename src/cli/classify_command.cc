#include "cli/classify_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>

#include "base/yaml_document.h"
#include "base/yaml_fields.h"
#include "runs/argument_classifier.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct ClassifyOptions {
  std::string candidate;
  std::string reference;
  std::string format = "text";
};

// One side of the comparison as read from its file.
struct Operand {
  std::string source;  // as the user named it
  bool recipe = false;
  std::string command;
  int first_line = 1;  // the file line of the command's line 1
  std::optional<std::vector<ComponentTest>> component_tests;  // recipes only
  std::vector<TrainingVariable> env;                          // recipes: `env:`, at file lines
};

bool is_recipe_path(const std::string& path) {
  std::string extension = fs::path(path).extension().string();
  return extension == ".yaml" || extension == ".yml";
}

std::optional<Operand> read_operand(const std::string& path, Problems& problems) {
  Operand operand;
  operand.source = path;
  if (path == "-") {
    std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    if (text.size() > kMaxCatalogFileBytes) {
      problems.push_back({"-",
                          {},
                          "",
                          "file",
                          "standard input is too large",
                          fmt::format("at most {} bytes", kMaxCatalogFileBytes),
                          fmt::format("{} bytes", text.size())});
      return std::nullopt;
    }
    operand.command = std::move(text);
    return operand;
  }
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  if (!is_recipe_path(path)) {
    operand.command = std::move(*text);
    return operand;
  }
  std::optional<YamlDocument> document = parse_yaml(*text, path, problems);
  if (!document) return std::nullopt;
  const YamlNode* run = document->root.find("run");
  if (!run || run->kind != YamlNode::Kind::kScalar) {
    problems.push_back({path, document->position_of("run"), "run", "classify.run",
                        "a recipe's run field holds the command to classify", "the command as run",
                        run ? describe_found(*run) : "no run field"});
    return std::nullopt;
  }
  operand.recipe = true;
  operand.command = run->scalar;
  // A block scalar's text starts on the line after its `|`.
  operand.first_line = run->position.line + (run->style == '|' || run->style == '>' ? 1 : 0);
  if (const YamlNode* env = field_mapping(document->root, "env")) {
    for (const YamlEntry& entry : env->entries) {
      operand.env.push_back({entry.key, entry.value.scalar, entry.key_position.line});
    }
  }
  operand.component_tests.emplace();
  if (const YamlNode* correctness = field_mapping(document->root, "correctness")) {
    if (const YamlNode* tests = correctness->find("component_tests")) {
      for (const YamlNode& item : tests->items) {
        operand.component_tests->push_back({field_string(item, "test"), field_string(item, "shape"),
                                            field_string(item, "gpu"), field_string(item, "date"),
                                            field_string(item, "result"),
                                            field_string(item, "detail")});
      }
    }
  }
  return operand;
}

// Control characters never reach the terminal raw, and a value stays one readable cell: cut after
// `longest` characters (JSON output has it whole).
std::string cell(const std::string& text, std::size_t longest = 72) {
  std::string out;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80 && ++characters > longest) {
      out += "...";
      break;
    }
    out +=
        c < 0x20 || c == 0x7F ? fmt::format("\\x{:02X}", c) : std::string(1, static_cast<char>(c));
  }
  return out;
}

// Text from the rules or the classifier: escaped, cut only when absurdly long.
constexpr std::size_t kWhole = 1000;

// Display width in characters (UTF-8 continuation bytes take none).
std::size_t width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& text, std::size_t to) {
  return text + std::string(to > width(text) ? to - width(text) : 0, ' ');
}

std::string class_name(const ClassifiedDifference& d) {
  return d.argument_class ? std::string(class_label(*d.argument_class)) : "unknown";
}

std::string row_name(const CommandDifference& d) {
  switch (d.kind) {
    case DifferenceKind::kArgument:
    case DifferenceKind::kProgram:
      return d.name;
    case DifferenceKind::kEnvironment:
      return "env " + d.name;
    case DifferenceKind::kExternalArray:
      return "array " + d.name;
  }
  return d.name;
}

std::string_view status_name(ComponentCheck::Status status) {
  switch (status) {
    case ComponentCheck::Status::kPassed:
      return "passed";
    case ComponentCheck::Status::kFailed:
      return "failed";
    case ComponentCheck::Status::kMissing:
      return "missing";
  }
  return "missing";
}

std::string_view kind_name(DifferenceKind kind) {
  switch (kind) {
    case DifferenceKind::kArgument:
      return "argument";
    case DifferenceKind::kEnvironment:
      return "environment";
    case DifferenceKind::kProgram:
      return "program";
    case DifferenceKind::kExternalArray:
      return "external_array";
  }
  return "argument";
}

void print_text(const Operand& candidate, const Operand& reference, const Classification& result) {
  fmt::print("candidate  {}\nreference  {}\n\n", cell(candidate.source), cell(reference.source));
  if (result.differences.empty()) {
    fmt::print("no differences\n\n");
  } else {
    std::vector<std::vector<std::string>> rows = {
        {"class", "setting", "reference", "candidate", "reason"}};
    for (const ClassifiedDifference& d : result.differences) {
      rows.push_back({class_name(d), cell(row_name(d.difference)),
                      cell(d.difference.reference.value_or("(absent)")),
                      cell(d.difference.candidate.value_or("(absent)")), cell(d.reason, kWhole)});
    }
    std::vector<std::size_t> widths(5, 0);
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
    }
    for (const auto& row : rows) {
      std::string line;
      for (std::size_t c = 0; c + 1 < row.size(); ++c) line += pad(row[c], widths[c]) + "  ";
      fmt::print("{}{}\n", line, row.back());
    }
    fmt::print("\n");
  }
  for (const ComponentCheck& check : result.components) {
    std::string listed =
        check.status == ComponentCheck::Status::kMissing
            ? (candidate.recipe ? " (the candidate's correctness.component_tests lists none)" : "")
            : fmt::format(": {}", cell(check.test, kWhole));
    fmt::print("component test  {} (for {}): {}{}\n", check.component,
               fmt::join(check.needed_by, ", "), status_name(check.status), listed);
  }
  for (const std::string& note : result.notes)
    fmt::print("note            {}\n", cell(note, kWhole));
  fmt::print("verdict         {}\n", result.verdict_text());
}

nlohmann::json optional_json(const std::optional<std::string>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json line_json(int line) {
  return line > 0 ? nlohmann::json(line) : nlohmann::json(nullptr);
}

// The operand's training command with every line a line of its file, its recipe `env:` merged in.
// Problems (malformed shell, no command, not text) go to `problems` at their file line; conflicts
// between a recipe's env and its run go to `notes`.
TrainingCommand read_command(const Operand& operand, const std::string& side,
                             const ArgumentRules& rules, Problems& problems,
                             std::vector<std::string>& notes) {
  TrainingCommand command = read_training_command(operand.command, rules);
  auto shift = [&](int& line) {
    if (line > 0) line += operand.first_line - 1;
  };
  shift(command.line);
  for (TrainingArgument& argument : command.arguments) shift(argument.line);
  for (TrainingVariable& variable : command.environment) shift(variable.line);
  for (int& line : command.other_commands) shift(line);
  for (Problem& problem : command.problems) {
    shift(problem.position.line);
    problems.push_back({operand.source,
                        problem.position,
                        "",
                        "classify.command",
                        problem.message,
                        "",
                        ""});
  }
  for (const std::string& message : merge_recipe_environment(command, operand.env))
    notes.push_back(fmt::format("{}: {}", side, message));
  if (!command.other_commands.empty() && command.problems.empty()) {
    notes.push_back(fmt::format(
        "{}: compared the command at line {}, the launcher with the most flags and overrides; "
        "the command{} at line{} {} also {} flags or overrides",
        side, command.line, command.other_commands.size() > 1 ? "s" : "",
        command.other_commands.size() > 1 ? "s" : "", fmt::join(command.other_commands, ", "),
        command.other_commands.size() > 1 ? "have" : "has"));
  }
  return command;
}

nlohmann::json to_json(const Operand& candidate, const Operand& reference,
                       const std::string& rules_file, const Classification& result) {
  auto operand_json = [](const Operand& operand) {
    return nlohmann::json{{"source", operand.source},
                          {"kind", operand.recipe ? "recipe" : "command"}};
  };
  nlohmann::json differences = nlohmann::json::array();
  for (const ClassifiedDifference& d : result.differences) {
    const CommandDifference& diff = d.difference;
    nlohmann::json row = {
        {"class", d.argument_class ? std::string(class_id(*d.argument_class)) : "unknown"},
        {"kind", kind_name(diff.kind)},
        {"name", diff.name},
        {"rule", d.rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.rule)},
        {"reference", optional_json(diff.reference)},
        {"candidate", optional_json(diff.candidate)},
        {"reference_line", line_json(diff.reference_line)},
        {"candidate_line", line_json(diff.candidate_line)},
        {"reason", d.reason},
    };
    if (diff.kind == DifferenceKind::kArgument) {
      row["reference_spelling"] =
          diff.reference ? nlohmann::json(diff.reference_spelling) : nlohmann::json(nullptr);
      row["candidate_spelling"] =
          diff.candidate ? nlohmann::json(diff.candidate_spelling) : nlohmann::json(nullptr);
    }
    if (!d.component.empty()) row["component"] = d.component;
    differences.push_back(std::move(row));
  }
  nlohmann::json components = nlohmann::json::array();
  for (const ComponentCheck& check : result.components) {
    components.push_back(
        {{"component", check.component},
         {"needed_by", check.needed_by},
         {"status", status_name(check.status)},
         {"test", check.test.empty() ? nlohmann::json(nullptr) : nlohmann::json(check.test)}});
  }
  return {{"candidate", operand_json(candidate)},
          {"reference", operand_json(reference)},
          {"rules", rules_file},
          {"differences", differences},
          {"component_tests", components},
          {"notes", result.notes},
          {"verdict",
           {{"id", verdict_id(result.verdict)},
            {"text", result.verdict_text()},
            {"passes", result.passes()}}}};
}

int print_problems(const Problems& problems, const std::string& format) {
  if (format == "json") {
    nlohmann::json array = nlohmann::json::array();
    for (const Problem& problem : problems) array.push_back(problem_to_json(problem));
    fmt::print("{}\n", nlohmann::json{{"problems", array}}.dump(
                           2, ' ', false, nlohmann::json::error_handler_t::replace));
  } else {
    for (const Problem& problem : problems) fmt::print("{}\n", format_problem_line(problem));
  }
  return kExitProblems;
}

int run_classify(const GlobalOptions& global, const ClassifyOptions& options) {
  if (options.candidate == "-" && options.reference == "-") {
    fmt::print(
        stderr,
        "openrecipes classify: only one of CANDIDATE and REFERENCE can be - (standard input)\n");
    return kExitUsage;
  }
  std::optional<fs::path> root = resolve_root(global);
  if (!root) return kExitUsage;
  std::error_code ec;
  fs::path shown_root = fs::proximate(*root, fs::current_path(ec), ec);
  if (ec) shown_root = *root;

  Problems problems;
  std::optional<ArgumentRules> rules = load_argument_rules(shown_root, problems);
  std::optional<Operand> candidate = read_operand(options.candidate, problems);
  std::optional<Operand> reference = read_operand(options.reference, problems);
  if (!rules || !candidate || !reference) return print_problems(problems, options.format);

  std::vector<std::string> notes;
  TrainingCommand candidate_command =
      read_command(*candidate, "candidate", *rules, problems, notes);
  TrainingCommand reference_command =
      read_command(*reference, "reference", *rules, problems, notes);
  if (!problems.empty()) return print_problems(problems, options.format);
  Classification result =
      classify_commands(candidate_command, reference_command, *rules, candidate->component_tests);
  result.notes.insert(result.notes.end(), notes.begin(), notes.end());
  if (options.format == "json") {
    fmt::print("{}\n", to_json(*candidate, *reference, rules->file(), result)
                           .dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  } else {
    print_text(*candidate, *reference, result);
  }
  return result.passes() ? kExitOk : kExitProblems;
}

}  // namespace

void add_classify_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ClassifyOptions>();
  CLI::App* command = app.add_subcommand(
      "classify",
      "Diff two training commands and class each differing argument with rules/arguments.yaml "
      "(execution, same-math swap, convergence, benign; unknown fails)");
  command
      ->add_option("CANDIDATE", options->candidate,
                   "The candidate: a recipe (.yaml, its run field), a file holding a command, or - "
                   "for stdin")
      ->required();
  command
      ->add_option("REFERENCE", options->reference,
                   "The reference it was tuned from, read the same way")
      ->required();
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_classify(global, *options); });
}

}  // namespace openrecipes::cli
