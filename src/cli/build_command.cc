#include "cli/build_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "cli/catalog_cache.h"
#include "cli/json_output.h"
#include "cli/problem_output.h"
#include "plan/catalog_measurements.h"
#include "rows/remove_on_signal.h"
#include "site/pair_predictions_cache.h"
#include "site/site_builder.h"
#include "site/site_files.h"
#include "validate/recipe_validator.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct SiteBuildFlags {
  std::string out;
  std::string format = "text";
  bool check = false;
};

std::string shown(const fs::path& path) {
  std::error_code ec;
  fs::path relative = path.lexically_relative(fs::current_path(ec));
  std::string text =
      relative.empty() || relative.native().rfind("..", 0) == 0 ? path.string() : relative.string();
  return text == "." ? "./" : text + "/";
}

std::string plural(std::size_t count, const char* word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

// The site may not be the catalog itself, hold it, or sit inside one of its data folders.
std::string unsafe_out(const fs::path& root, const fs::path& out) {
  auto inside = [](const fs::path& folder, const fs::path& path) {
    auto [end, _] = std::mismatch(folder.begin(), folder.end(), path.begin(), path.end());
    return end == folder.end();
  };
  if (inside(out, root)) return "it holds the catalog";
  for (const char* folder :
       {"recipes", "models", "schema", "templates", "patches", "deps", "src", "tests"}) {
    if (inside(root / folder, out))
      return fmt::format("it is inside the catalog's {}/ folder", folder);
  }
  return "";
}

const char* difference_kind(const SiteDifference& d) {
  return d.kind == SiteDifference::Kind::kStale     ? "stale"
         : d.kind == SiteDifference::Kind::kMissing ? "missing"
         : d.kind == SiteDifference::Kind::kExtra   ? "extra"
                                                    : "unreadable";
}

int run_site_build(const GlobalOptions& global, const SiteBuildFlags& options) {
  std::optional<fs::path> root = resolve_root(global);
  if (!root) return kExitUsage;
  fs::path out =
      (options.out.empty() ? *root / "site" : fs::absolute(options.out)).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  if (std::string why = unsafe_out(root->lexically_normal(), out); !why.empty()) {
    fmt::print(stderr, "openrecipes build: refusing --out {}: {}\n", out.string(), why);
    return kExitUsage;
  }

  // The catalog's problems are the check's result, on stdout as validate prints them.
  // With --format json the output is one JSON value: the problems' array when there are any,
  // else the result object below.
  OutputFormat format = output_format(options.format);
  bool json = format == OutputFormat::kJson;
  // Opened before the catalog is read (catalog_cache.h).
  std::optional<CatalogCache> cache = catalog_cache(*root);
  CatalogCheck check = check_catalog_remembering_clean(*root, {}, fs::current_path());
  if (!json || !check.problems.empty()) print_problems(check.problems, format, stdout);
  if (!json) {
    fmt::print("{}, {}\n", plural(check.files_checked, "recipe"),
               plural(check.problems.size(), "problem"));
  }
  std::fflush(stdout);
  if (!check.problems.empty()) {
    fmt::print(stderr, "openrecipes build: refusing to build from an invalid catalog\n");
    return kExitProblems;
  }
  Problems problems;
  SitePredictions predictions = predict_unmeasured_pairs_cached(
      check, cache ? &cache->cache : nullptr,
      cache ? cache->key("site predictions", measurement_evidence(check.recipes)) : "");
  const std::size_t files_checked = check.files_checked;
  std::optional<SiteFiles> files = build_site(std::move(check), predictions, problems);
  if (!files) return print_problems(problems, format, stdout);

  nlohmann::ordered_json result = {{"recipes", files_checked}, {"out", shown(out)}};
  if (options.check) {
    std::vector<SiteDifference> differences = compare_site(out, *files);
    if (json) {
      nlohmann::ordered_json listed = nlohmann::ordered_json::array();
      for (const SiteDifference& d : differences) {
        listed.push_back({{"kind", difference_kind(d)}, {"path", d.path}, {"reason", d.reason}});
      }
      result["up_to_date"] = differences.empty();
      result["files"] = files->size() + 1;
      result["differences"] = listed;
      print_json(result);
      return differences.empty() ? kExitOk : kExitProblems;
    }
    for (const SiteDifference& d : differences) {
      fmt::print("{}: {}{}{}\n", difference_kind(d), shown(out), d.path,
                 d.reason.empty() ? "" : " (" + d.reason + ")");
    }
    if (!differences.empty()) {
      fmt::print("{} is not what a build would write ({} differ{}); run openrecipes build\n",
                 shown(out), plural(differences.size(), "file"),
                 differences.size() == 1 ? "s" : "");
      return kExitProblems;
    }
    fmt::print("{} is up to date ({} files)\n", shown(out), files->size() + 1);
    return kExitOk;
  }

  // A build killed with SIGKILL leaves its temporary folder beside the site; remove it now.
  for (const StaleTemporary& stale : remove_stale_temporaries(out, kSiteStagingTag)) {
    fmt::print(stderr, "openrecipes build: removed stale temporary {} {} left by process {}\n",
               stale.folder ? "folder" : "file", stale.path.string(), stale.pid);
  }
  write_site_atomically(out, *files);  // an IoError ends in main: "openrecipes build: ..."
  if (json) {
    result["files_written"] = files->size() + 1;
    print_json(result);
    return kExitOk;
  }
  fmt::print("Wrote {} to {}\n", plural(files->size() + 1, "file"), shown(out));
  bool default_out = out == (*root / "site").lexically_normal();
  fmt::print(
      "Read it: openrecipes serve{}, then open http://127.0.0.1:8000/ (or open {}index.html)\n",
      default_out ? "" : " --dir " + shown(out), shown(out));
  return kExitOk;
}

}  // namespace

void add_build_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<SiteBuildFlags>();
  CLI::App* command = app.add_subcommand(
      "build", "Validate the catalog and render the static site (ranked pages per model and GPU)");
  command->add_option("--out", options->out, "Site folder (default: <root>/site)");
  command
      ->add_option("--format", options->format,
                   "text (default) or json: one JSON value, the problems' array when there are "
                   "any, else {recipes, out, files_written} or, with --check, {recipes, out, "
                   "up_to_date, files, differences: [{kind, path, reason}]}")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_flag("--check", options->check,
                    "Write nothing; list every stale, missing or extra file and exit 1 if any");
  command->callback(
      [&global, &exit_code, options] { exit_code = run_site_build(global, *options); });
}

}  // namespace openrecipes::cli
