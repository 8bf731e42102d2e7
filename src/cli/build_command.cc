#include "cli/build_command.h"

#include <fmt/format.h>

#include <memory>

#include "site/site_builder.h"
#include "site/site_files.h"
#include "validate/recipe_validator.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct BuildOptions {
  std::string out;
  bool check = false;
};

std::string shown(const fs::path& path) {
  std::error_code ec;
  fs::path relative = path.lexically_relative(fs::current_path(ec));
  std::string text = relative.empty() || relative.native().rfind("..", 0) == 0 ? path.string()
                                                                              : relative.string();
  return text + "/";
}

int run_build(const GlobalOptions& global, const BuildOptions& options) {
  std::optional<fs::path> root = resolve_root(global);
  if (!root) return kExitUsage;
  fs::path out = options.out.empty() ? *root / "site" : fs::absolute(options.out);

  CatalogCheck check = check_catalog(*root, {}, fs::current_path());
  for (const Problem& problem : check.problems) fmt::print("{}\n", format_problem_line(problem));
  fmt::print("{} recipes, {} problems\n", check.files_checked, check.problems.size());
  if (!check.problems.empty()) {
    fmt::print(stderr, "openrecipes build: refusing to build from an invalid catalog\n");
    return kExitProblems;
  }
  Problems problems;
  std::optional<SiteFiles> files = build_site(check, problems);
  if (!files) {
    for (const Problem& problem : problems) fmt::print("{}\n", format_problem_line(problem));
    return kExitProblems;
  }

  if (options.check) {
    std::vector<SiteDifference> differences = compare_site(out, *files);
    for (const SiteDifference& d : differences) {
      const char* kind = d.kind == SiteDifference::Kind::kStale     ? "stale"
                         : d.kind == SiteDifference::Kind::kMissing ? "missing"
                                                                    : "extra";
      fmt::print("{}: {}{}\n", kind, shown(out), d.path);
    }
    if (!differences.empty()) {
      fmt::print("{} is not what a build would write ({} file{} differ); run openrecipes build\n",
                 shown(out), differences.size(), differences.size() == 1 ? "" : "s");
      return kExitProblems;
    }
    fmt::print("{} is up to date ({} files)\n", shown(out), files->size() + 1);
    return kExitOk;
  }

  std::string error = write_site_atomically(out, *files);
  if (!error.empty()) {
    fmt::print(stderr, "openrecipes build: {}\n", error);
    return kExitProblems;
  }
  fmt::print("Wrote {} files to {}\n", files->size() + 1, shown(out));
  fmt::print("Read it: build/openrecipes serve, then open http://127.0.0.1:8000/ (or open {}index.html)\n",
             shown(out));
  return kExitOk;
}

}  // namespace

void add_build_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<BuildOptions>();
  CLI::App* command = app.add_subcommand(
      "build", "Validate the catalog and render the static site (ranked pages per model and GPU)");
  command->add_option("--out", options->out, "Site folder (default: <root>/site)");
  command->add_flag("--check", options->check,
                    "Write nothing; list every stale, missing or extra file and exit 1 if any");
  command->callback([&global, &exit_code, options] { exit_code = run_build(global, *options); });
}

}  // namespace openrecipes::cli
