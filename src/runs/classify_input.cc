#include "runs/classify_input.h"

#include <fmt/format.h>

#include <istream>
#include <iterator>

#include "base/yaml_document.h"
#include "base/yaml_fields.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

bool is_recipe_path(const std::string& path) {
  std::string extension = fs::path(path).extension().string();
  return extension == ".yaml" || extension == ".yml";
}

// Standard input, whole, as a command.
std::optional<ClassifyOperand> read_standard_input(std::istream& in, Problems& problems) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
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
  ClassifyOperand operand;
  operand.source = "-";
  operand.command = std::move(text);
  return operand;
}

// `correctness.component_tests` of a recipe: each item's test, shape, gpu, date, result, detail.
std::vector<ComponentTest> component_tests_of(const YamlNode& root) {
  std::vector<ComponentTest> tests;
  const YamlNode* correctness = field_mapping(root, "correctness");
  const YamlNode* items = correctness ? correctness->find("component_tests") : nullptr;
  if (!items) return tests;
  for (const YamlNode& item : items->items) {
    tests.push_back({field_string(item, "test"), field_string(item, "shape"),
                     field_string(item, "gpu"), field_string(item, "date"),
                     field_string(item, "result"), field_string(item, "detail")});
  }
  return tests;
}

// A recipe's `run` (at its file line), `env:` and component tests.
std::optional<ClassifyOperand> recipe_operand(const std::string& path, const std::string& text,
                                              Problems& problems) {
  std::optional<YamlDocument> document = parse_yaml(text, path, problems);
  if (!document) return std::nullopt;
  const YamlNode* run = document->root.find("run");
  if (!run || run->kind != YamlNode::Kind::kScalar) {
    problems.push_back({path, document->position_of("run"), "run", "classify.run",
                        "a recipe's run field holds the command to classify", "the command as run",
                        run ? describe_found(*run) : "no run field"});
    return std::nullopt;
  }
  ClassifyOperand operand;
  operand.source = path;
  operand.recipe = true;
  operand.command = run->scalar;
  // A block scalar's text starts on the line after its `|`.
  operand.first_line = run->position.line + (run->style == '|' || run->style == '>' ? 1 : 0);
  if (const YamlNode* env = field_mapping(document->root, "env")) {
    for (const YamlEntry& entry : env->entries)
      operand.env.push_back({entry.key, entry.value.scalar, entry.key_position.line});
  }
  operand.component_tests = component_tests_of(document->root);
  return operand;
}

// Moves every line of `command` from the command's own numbering to its file's.
void shift_lines(TrainingCommand& command, int first_line) {
  auto shift = [&](int& line) {
    if (line > 0) line += first_line - 1;
  };
  shift(command.line);
  for (TrainingArgument& argument : command.arguments) shift(argument.line);
  for (TrainingVariable& variable : command.environment) shift(variable.line);
  for (int& line : command.other_commands) shift(line);
  for (Problem& problem : command.problems) shift(problem.position.line);
}

// The note naming the command compared when others with flags stand beside it.
std::string other_commands_note(const std::string& side, const TrainingCommand& command) {
  bool several = command.other_commands.size() > 1;
  return fmt::format(
      "{}: compared the command at line {}, the launcher with the most flags and overrides; "
      "the command{} at line{} {} also {} flags or overrides",
      side, command.line, several ? "s" : "", several ? "s" : "",
      fmt::join(command.other_commands, ", "), several ? "have" : "has");
}

}  // namespace

std::optional<ClassifyOperand> read_classify_operand(const std::string& path,
                                                     std::istream& standard_input,
                                                     Problems& problems) {
  if (path == "-") return read_standard_input(standard_input, problems);
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  if (is_recipe_path(path)) return recipe_operand(path, *text, problems);
  ClassifyOperand operand;
  operand.source = path;
  operand.command = std::move(*text);
  return operand;
}

TrainingCommand classify_operand_command(const ClassifyOperand& operand, const std::string& side,
                                         const ArgumentRules& rules, Problems& problems,
                                         std::vector<std::string>& notes) {
  TrainingCommand command = read_training_command(operand.command, rules);
  shift_lines(command, operand.first_line);
  for (const Problem& problem : command.problems) {
    problems.push_back(
        {operand.source, problem.position, "", "classify.command", problem.message, "", ""});
  }
  for (const std::string& message : merge_recipe_environment(command, operand.env))
    notes.push_back(fmt::format("{}: {}", side, message));
  if (!command.other_commands.empty() && command.problems.empty())
    notes.push_back(other_commands_note(side, command));
  return command;
}

std::optional<ClassifyReport> classify_files(const std::filesystem::path& rules_root,
                                             const std::string& candidate_path,
                                             const std::string& reference_path,
                                             std::istream& standard_input, Problems& problems) {
  std::optional<ArgumentRules> rules = load_argument_rules(rules_root, problems);
  std::optional<ClassifyOperand> candidate =
      read_classify_operand(candidate_path, standard_input, problems);
  std::optional<ClassifyOperand> reference =
      read_classify_operand(reference_path, standard_input, problems);
  if (!rules || !candidate || !reference) return std::nullopt;

  std::vector<std::string> notes;
  TrainingCommand candidate_command =
      classify_operand_command(*candidate, "candidate", *rules, problems, notes);
  TrainingCommand reference_command =
      classify_operand_command(*reference, "reference", *rules, problems, notes);
  if (!problems.empty()) return std::nullopt;
  ClassifyReport report{std::move(*candidate), std::move(*reference), rules->file(), {}};
  report.result = classify_commands(candidate_command, reference_command, *rules,
                                    report.candidate.component_tests);
  report.result.notes.insert(report.result.notes.end(), notes.begin(), notes.end());
  return report;
}

}  // namespace openrecipes
