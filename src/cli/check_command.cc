#include "cli/check_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "cli/json_output.h"
#include "cli/problem_output.h"
#include "cli/recipe_file.h"
#include "runs/argument_rules.h"
#include "runs/correctness_check.h"
#include "runs/training_command.h"
#include "validate/recipe_validator.h"

namespace openrecipes::cli {
namespace {

struct CheckOptions {
  std::string recipe;
  std::string reference;
  std::string candidate_log;
  std::string reference_log;
  std::string format = "text";
  bool accept_stated = false;
};

// The reference's command: a recipe's `run`, or a file holding the command as text.
std::optional<std::string> reference_command(const std::string& path, Problems& problems) {
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  std::string extension = std::filesystem::path(path).extension().string();
  if (extension != ".yaml" && extension != ".yml") return text;
  std::optional<YamlDocument> document = parse_yaml(*text, path, problems);
  if (!document) return std::nullopt;
  const YamlNode* run = document->root.find("run");
  if (!run || run->kind != YamlNode::Kind::kScalar) {
    problems.push_back({path, document->position_of("run"), "run", "check.reference",
                        "the reference recipe has no run command", "the command as run",
                        "nothing"});
    return std::nullopt;
  }
  return run->scalar;
}

// `--format json`: the result, the result in words, and each part with its status.
void print_check_json(const std::string& recipe_path, const CorrectnessInputs& inputs,
                      const CorrectnessCheck& check) {
  nlohmann::json parts = nlohmann::json::array();
  nlohmann::json stated = nlohmann::json::array();
  for (const CorrectnessPart& part : check.parts) {
    parts.push_back({{"name", part.name},
                     {"status", part.status()},
                     {"evidence_passes", part.passed},
                     {"recomputed", part.recomputed},
                     {"detail", part.detail}});
    if (!part.recomputed) stated.push_back(part.name);
  }
  nlohmann::json validation = nlohmann::json::array();
  for (const Problem& problem : inputs.validation) validation.push_back(problem_to_json(problem));
  nlohmann::json out = {{"recipe", recipe_path},
                        {"result", check.result()},
                        {"result_text", check.result_text()},
                        {"accept_stated", check.accept_stated},
                        {"stated_parts", stated},
                        {"summary", check.summary()},
                        {"parts", parts},
                        {"validation_problems", validation}};
  print_json(out);
}

// Text: validate's problems, one line per part (status, how it was decided, what was found), the
// result in words, then the correctness block.
void print_check_text(const Recipe& recipe, const CorrectnessInputs& inputs,
                      const CorrectnessCheck& check) {
  for (const Problem& problem : inputs.validation) fmt::print("{}\n", format_problem_line(problem));
  for (const CorrectnessPart& part : check.parts) {
    std::string status = part.status() == "fail" ? "FAIL" : part.status();
    fmt::print("{:<16} {:<10} {:<10} {}\n", part.name, status,
               part.recomputed ? "recomputed" : "as stated", part.detail);
  }
  fmt::print("result: {}\n", check.result_text());
  fmt::print("{}", correctness_block_yaml(recipe, inputs, check));
}

int run_check(const GlobalOptions& global, const CheckOptions& options) {
  OutputFormat format = output_format(options.format);
  if (options.candidate_log.empty() != options.reference_log.empty()) {
    return print_usage_error("openrecipes check",
                             "give both --candidate-log and --reference-log, or neither", format);
  }
  Problems problems;
  std::optional<RecipeFile> recipe = read_recipe_file(global, options.recipe, problems);
  if (!recipe) {
    if (problems.empty()) return kExitUsage;  // no catalog root; resolve_root said why
    return print_problems(problems, format, stderr);
  }
  CorrectnessInputs inputs;
  inputs.accept_stated = options.accept_stated;
  inputs.validation = validate_recipe_file(recipe->catalog, options.recipe).problems;
  if (!options.reference.empty()) {
    std::optional<ArgumentRules> rules =
        load_argument_rules(recipe->catalog.catalog.root, problems);
    std::optional<std::string> reference =
        rules ? reference_command(options.reference, problems) : std::nullopt;
    if (!reference) return print_problems(problems, format, stderr);
    inputs.reference = options.reference;
    TrainingCommand candidate = read_training_command(recipe->recipe.run, *rules);
    TrainingCommand reference_command_read = read_training_command(*reference, *rules);
    // Malformed shell, no command at all, or bytes that are not text: nothing to classify.
    int run_line =
        recipe->document.position_of("run").line + 1;  // a block scalar starts below `run: |`
    for (const Problem& problem : candidate.problems) {
      int line = problem.position.line;
      SourcePosition at = line > 0 ? SourcePosition{run_line + line - 1, 1} : SourcePosition{};
      problems.push_back({options.recipe, at, "run", "check.run", problem.message, "", ""});
    }
    for (const Problem& problem : reference_command_read.problems) {
      SourcePosition at = problem.position;
      problems.push_back({options.reference, at, "", "check.reference", problem.message, "", ""});
    }
    if (!problems.empty()) return print_problems(problems, format, stderr);
    inputs.classification = classify_commands(candidate, reference_command_read, *rules,
                                              recipe->recipe.correctness.component_tests);
  }
  if (!options.candidate_log.empty()) {
    std::optional<LossSeries> candidate_losses = read_loss_series(options.candidate_log, problems);
    std::optional<LossSeries> reference_losses = read_loss_series(options.reference_log, problems);
    if (!candidate_losses || !reference_losses) return print_problems(problems, format, stderr);
    inputs.convergence = compare_convergence(*candidate_losses, *reference_losses);
  }
  CorrectnessCheck check = check_correctness(recipe->recipe, inputs);
  if (format == OutputFormat::kJson) {
    print_check_json(options.recipe, inputs, check);
  } else {
    print_check_text(recipe->recipe, inputs, check);
  }
  return check.passed() ? kExitOk : kExitProblems;
}

}  // namespace

void add_check_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* command = app.add_subcommand(
      "check",
      "Compose a recipe's correctness evidence (validate, classify against the "
      "reference, component tests, "
      "convergence) into its correctness block; exit 1 unless every part passes and was "
      "recomputed (or --accept-stated)");
  command->add_option("RECIPE", options->recipe, "The recipe to check")->required();
  command->add_option("--reference", options->reference,
                      "The reference: a recipe, or a file holding its command");
  command->add_option("--candidate-log", options->candidate_log,
                      "The measured run's log (or loss CSV/JSON)");
  command->add_option("--reference-log", options->reference_log,
                      "The reference arm's log (or loss CSV/JSON)");
  command->add_flag("--accept-stated", options->accept_stated,
                    "Accept the recipe's stated evidence for the parts not recomputed (without it "
                    "such a part is unverified and the check exits 1); the result says so");
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_check(global, *options); });
}

}  // namespace openrecipes::cli
