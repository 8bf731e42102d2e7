#include "measure/preflight_rows.h"

#include <fmt/format.h>

#include <filesystem>

#include "base/error.h"
#include "measure/preflight.h"
#include "rows/duckdb_session.h"
#include "rows/recipe_rows_check.h"
#include "rows/rows_file.h"
#include "runs/training_command.h"

namespace openrecipes {
namespace {

// NAME for a value `$NAME` or `${NAME}`; empty otherwise.
std::string lone_variable(const std::string& value) {
  std::string name;
  if (value.size() > 3 && value.rfind("${", 0) == 0 && value.back() == '}') {
    name = value.substr(2, value.size() - 3);
  } else if (value.size() > 1 && value[0] == '$') {
    name = value.substr(1);
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return "";
  }
  return name;
}

// The variable's value in the job: --env (the last one), the recipe's env, the submitting
// environment.
std::optional<std::string> job_value(const Recipe& recipe, const MeasureRequest& request,
                                     const std::string& name) {
  for (auto it = request.env.rbegin(); it != request.env.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  for (const auto& [key, value] : recipe.env) {
    if (key == name) return value;
  }
  auto submitted = request.submit_env.find(name);
  if (submitted != request.submit_env.end()) return submitted->second;
  return std::nullopt;
}

Problem rows_problem(const MeasureRequest& request, std::string message, std::string expected,
                     std::string found) {
  return {
      request.recipe_file, {}, "--rows", "measure.rows", std::move(message), std::move(expected),
      std::move(found)};
}

}  // namespace

std::optional<std::string> rows_path_of_run(const Recipe& recipe, const MeasureRequest& request,
                                            const std::string& run) {
  TrainingCommand command = read_training_command(run, no_argument_rules());
  const TrainingArgument* data = command.find_spelling({"--prompt-data", "--data-path"});
  if (!data || data->value_words.size() != 1) return std::nullopt;
  std::string value = data->value;
  if (data->unevaluated) {
    std::string name = lone_variable(value);
    std::optional<std::string> set = name.empty() ? std::nullopt : job_value(recipe, request, name);
    if (!set) return std::nullopt;
    value = *set;
  }
  if (value.empty() || value.find('$') != std::string::npos ||
      value.find("://") != std::string::npos)
    return std::nullopt;
  return value;
}

void check_rows_file(const Recipe& recipe, const MeasureRequest& request,
                     MeasurePreflight& preflight) {
  std::optional<std::string> named = rows_path_of_run(recipe, request, preflight.run);
  std::string path = request.rows_file.empty() ? named.value_or("") : request.rows_file;
  if (path.empty()) {
    if (!recipe.workload.dataset.rows_sha256.empty())
      preflight.notes.push_back(
          "rows not checked: neither --rows nor the command's --prompt-data or --data-path names "
          "a local file");
    return;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (named && !request.rows_file.empty() &&
      fs::weakly_canonical(*named, ec) != fs::weakly_canonical(request.rows_file, ec)) {
    preflight.problems.push_back(
        rows_problem(request, "the command trains on another file", *named, request.rows_file));
  }
  if (!fs::is_regular_file(path, ec)) {
    preflight.problems.push_back(rows_problem(request,
                                              "the rows file the job trains on does not exist here",
                                              "a rows file (openrecipes rows build)", path));
    return;
  }
  if (!request.document) throw BugError("measure: a rows check without the recipe's document");
  DuckDbSession duckdb;
  Problems problems;
  std::optional<RowsFileSummary> summary = read_rows_file(path, duckdb, problems);
  preflight.problems.insert(preflight.problems.end(), problems.begin(), problems.end());
  if (!summary) return;
  RecipeRowsCheck check = check_rows_against_recipe(*summary, *request.document, recipe);
  preflight.problems.insert(preflight.problems.end(), summary->problems.begin(),
                            summary->problems.end());
  preflight.problems.insert(preflight.problems.end(), check.problems.begin(), check.problems.end());
  if (summary->problems.empty() && check.problems.empty())
    preflight.notes.push_back(
        fmt::format("rows {}: {} field(s) of workload.dataset match", path, check.matched.size()));
}

}  // namespace openrecipes
