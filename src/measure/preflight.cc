// preflight_measure (preflight.h): placeholders, variables and the model-args file; the rows file
// is preflight_rows.cc's.
#include "measure/preflight.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "base/source_text.h"
#include "measure/placeholders.h"
#include "measure/preflight_rows.h"
#include "measure/run_variables.h"
#include "runs/shell_reader.h"

namespace openrecipes {
namespace {

// A problem at line `run_line` of the run (the file's line when the run is a literal block), at
// the column of `needle` on it.
Problem run_problem(const MeasureRequest& request, int run_line, std::string_view needle,
                    std::string rule, std::string message, std::string expected,
                    std::string found) {
  SourcePosition position;
  int first = run_first_line(request.document);
  if (request.document) position = request.document->position_of("run");
  if (first > 0 && run_line > 0) {
    int line = first + run_line - 1;
    std::string_view text = SourceText(request.document->text).line(line);
    std::size_t at = needle.empty() ? std::string_view::npos : text.find(needle);
    if (at == std::string_view::npos && needle.size() > 1 && needle[0] == '$')
      at = text.find("${" + std::string(needle.substr(1)));
    position = {line, at == std::string_view::npos ? 1 : static_cast<int>(at) + 1};
  }
  return {request.recipe_file, position,        "run", std::move(rule), std::move(message),
          std::move(expected), std::move(found)};
}

std::string placeholder_names(const std::vector<Placeholder>& placeholders) {
  std::set<std::string> names;
  for (const Placeholder& p : placeholders) names.insert("<" + p.name + ">");
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// What --set NAME=VALUE fills `placeholder` with, in words, for the refusal.
std::string how_to_fill(const Placeholder& placeholder) {
  for (const DocumentedPlaceholder& documented : documented_placeholders()) {
    if (placeholder_key_matches(placeholder.name, documented.name))
      return fmt::format("--set '{}={}' ({})", documented.name, documented.example,
                         documented.value_rule);
  }
  return fmt::format("--set '{}=VALUE'", placeholder.name);
}

// Fills the run's placeholders from --set; each unfilled one, unknown key or bad value is a
// problem.
std::string filled_run(const Recipe& recipe, const MeasureRequest& request, Problems& problems) {
  std::vector<Placeholder> placeholders = find_placeholders(recipe.run);
  for (const auto& [key, value] : request.set) {
    // An init-capture: clang 14 (the sanitizer build's) cannot capture a structured binding.
    auto named = std::find_if(
        placeholders.begin(), placeholders.end(),
        [&wanted = key](const Placeholder& p) { return placeholder_key_matches(wanted, p.name); });
    if (named == placeholders.end()) {
      problems.push_back(
          run_problem(request, 0, "", "measure.set",
                      fmt::format("--set {}: the run has no placeholder <{}>", key, key),
                      "one of " + placeholder_names(placeholders), key));
    } else if (std::optional<std::string> bad = placeholder_value_problem(named->name, value)) {
      problems.push_back(
          run_problem(request, named->line, "<" + named->name + ">", "measure.set",
                      fmt::format("--set {}: not a value for <{}>", key, named->name), *bad,
                      escape_controls(value)));
    }
  }
  for (const Placeholder& placeholder : placeholders) {
    bool given = std::any_of(request.set.begin(), request.set.end(), [&](const auto& kv) {
      return placeholder_key_matches(kv.first, placeholder.name);
    });
    if (given) continue;
    problems.push_back(run_problem(
        request, placeholder.line, "<" + placeholder.name + ">", "measure.placeholder",
        fmt::format("the placeholder <{}> is not filled: bash would read it as redirections",
                    placeholder.name),
        how_to_fill(placeholder), "<" + placeholder.name + ">"));
  }
  return fill_placeholders(recipe.run, request.set);
}

// The variables and arrays the --model-args-file defines; a problem when it cannot be read.
ShellScript model_args(const MeasureRequest& request, Problems& problems) {
  if (request.model_args_file.empty()) return {};
  std::ifstream in(request.model_args_file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || std::filesystem::is_directory(request.model_args_file)) {
    problems.push_back({request.recipe_file,
                        {},
                        "--model-args-file",
                        "measure.model_args_file",
                        "cannot be read",
                        "a readable bash file that defines the arrays",
                        request.model_args_file});
    return {};
  }
  return read_shell_script(text.str());
}

bool env_has(const NamedValues& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
}

// Each variable the filled run reads that nothing sets.
void check_variables(const Recipe& recipe, const MeasureRequest& request, const std::string& run,
                     Problems& problems) {
  ShellScript sourced = model_args(request, problems);
  for (const RunVariable& variable : variables_read(run)) {
    if (variable.array) {
      if (sourced.arrays.count(variable.name)) continue;
      problems.push_back(run_problem(
          request, variable.line, "${" + variable.name + "[@]}", "measure.array",
          fmt::format("the run expands the array {} and does not define it; --env cannot set "
                      "an array",
                      variable.name),
          fmt::format("--model-args-file FILE, a bash file defining {}=(...) (as slime's "
                      "scripts/models/*.sh define MODEL_ARGS)",
                      variable.name),
          "not defined"));
      continue;
    }
    if (set_in_every_job(variable.name) || env_has(recipe.env, variable.name) ||
        env_has(request.env, variable.name) || request.submit_env.count(variable.name) ||
        sourced.variables.count(variable.name) || sourced.arrays.count(variable.name))
      continue;
    problems.push_back(run_problem(
        request, variable.line, "$" + variable.name, "measure.variable",
        fmt::format("the run reads ${} and nothing sets it", variable.name),
        fmt::format("--env {}=VALUE, the recipe's env, or {} in the submitting environment",
                    variable.name, variable.name),
        "unset"));
  }
}

// slime places its actors on a Ray cluster (ray.init in slime's train.py and train_async.py,
// THUDM/slime; its example scripts run `ray start --head` first). On one node ray.init starts a
// local cluster; across nodes the job needs one spanning them, which the batch script does not
// start: ray.init joins the cluster RAY_ADDRESS names (https://docs.ray.io/en/latest/
// ray-core/api/doc/ray.init.html), so without it the job waits for GPUs on nodes it cannot see.
void note_ray_cluster(const Recipe& recipe, const MeasureRequest& request, MeasurePreflight& out) {
  int nodes = recipe.gpu.per_node > 0 ? recipe.gpu.count / recipe.gpu.per_node : 1;
  if (nodes < 2 || out.run.find("--actor-num-nodes") == std::string::npos) return;
  bool given = request.submit_env.count("RAY_ADDRESS") > 0;
  for (const auto& [name, value] : request.env) given = given || name == "RAY_ADDRESS";
  for (const auto& [name, value] : recipe.env) given = given || name == "RAY_ADDRESS";
  if (given) return;
  out.notes.push_back(fmt::format(
      "slime trains across {} nodes on one Ray cluster, and this batch script starts none: give "
      "--env RAY_ADDRESS=HEAD:6379 for a cluster that spans the job's nodes (ray start --head on "
      "one, ray start --address on the others), or the job waits for GPUs it cannot see",
      nodes));
}

}  // namespace

int run_first_line(const YamlDocument* document) {
  if (!document) return 0;
  const YamlNode* run = document->root.find("run");
  if (!run || run->style != '|') return 0;
  return document->position_of("run").line + 1;
}

MeasurePreflight preflight_measure(const Recipe& recipe, const MeasureRequest& request) {
  MeasurePreflight out;
  check_measure_flags(recipe, request, out.problems);
  out.run = filled_run(recipe, request, out.problems);
  check_variables(recipe, request, out.run, out.problems);
  check_rows_file(recipe, request, out);
  note_ray_cluster(recipe, request, out);
  return out;
}

}  // namespace openrecipes
