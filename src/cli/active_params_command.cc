#include "cli/active_params_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "base/number_format.h"
#include "catalog/catalog_loader.h"
#include "cli/json_output.h"
#include "cli/problem_output.h"
#include "params/active_params.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct ActiveParamsOptions {
  std::string target;
  std::string format = "text";
};

void print_count_text(const std::string& source, const ActiveParamCount& count) {
  fmt::print("{} ({}): N = {} active parameters per token\n\n", source, count.model_type,
             format_count(count.active_params));
  fmt::print("{:<17} {:>6} {:>15} {:>15}  {}\n", "component", "layers", "per layer", "total",
             "matrices");
  for (const ParamComponent& c : count.components) {
    fmt::print("{:<17} {:>6} {:>15} {:>15}  {}\n", c.name, c.layers, format_count(c.per_layer),
               format_count(c.total), c.detail);
  }
  fmt::print("{:<17} {:>6} {:>15} {:>15}\n", "total", "", "", format_count(count.active_params));
  fmt::print("\nleft out: {}\n", fmt::join(count.left_out, ", "));
}

nlohmann::json to_json(const std::string& source, const ActiveParamCount& count) {
  nlohmann::json components = nlohmann::json::array();
  for (const ParamComponent& c : count.components) {
    components.push_back({{"name", c.name},
                          {"layers", c.layers},
                          {"per_layer", c.per_layer},
                          {"total", c.total},
                          {"detail", c.detail}});
  }
  return {{"source", source},
          {"model_type", count.model_type},
          {"active_params", count.active_params},
          {"components", components},
          {"left_out", count.left_out}};
}

int run_active_params(const GlobalOptions& global, const ActiveParamsOptions& options) {
  // A config's problems are the command's result: on stdout, as validate prints them.
  OutputFormat format = output_format(options.format);
  std::string path = options.target;
  std::error_code ec;
  // A path (a slash, or a .json name) is a file even when it is missing: "no such file", not a
  // search for a catalog it does not need. Models' names and slugs have neither.
  const bool looks_like_path =
      path.find('/') != std::string::npos || (path.size() > 5 && path.ends_with(".json"));
  if (!looks_like_path && !fs::exists(path, ec)) {
    // Not a file: a model of the catalog, by name or slug.
    std::optional<fs::path> root = resolve_root(global);
    if (!root) return kExitUsage;
    Problems problems;
    std::optional<LoadedCatalog> loaded = load_catalog(*root, problems);
    if (!loaded) return print_problems(problems, format, stdout);
    const Model* model = loaded->catalog.find_model(options.target);
    for (const Model& m : loaded->catalog.models) {
      if (!model && m.slug == options.target) model = &m;
    }
    if (!model) {
      std::vector<std::string> names;
      for (const Model& m : loaded->catalog.models) names.push_back(m.name);
      // Bad input (exit 1), as plan's unknown --model is.
      problems.push_back({options.target,
                          {},
                          "",
                          "active_params.target",
                          "neither a file nor a model in models.yaml",
                          fmt::format("a config.json or one of {}", fmt::join(names, ", ")),
                          options.target});
      return print_problems(problems, format, stdout);
    }
    path = (*root / "models" / model->slug / "config.json").string();
  }
  Problems problems;
  std::optional<ActiveParamCount> count = count_active_params_of_file(path, problems);
  if (!count) return print_problems(problems, format, stdout);
  if (options.format == "json") {
    print_json(to_json(path, *count));
  } else {
    print_count_text(path, *count);
  }
  return kExitOk;
}

}  // namespace

void add_active_params_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ActiveParamsOptions>();
  CLI::App* command = app.add_subcommand(
      "active-params", "Count N, the active parameters per token, from a Hugging Face config.json");
  command
      ->add_option("PATH|MODEL", options->target,
                   "A config.json, a folder holding one, or a model of models.yaml (name or slug)")
      ->required();
  command->add_option("--format", options->format, "Output format, errors included")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback(
      [&global, &exit_code, options] { exit_code = run_active_params(global, *options); });
}

}  // namespace openrecipes::cli
