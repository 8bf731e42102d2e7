// The result cache as a user meets it: a second `build` or `plan` with nothing changed reads what
// the first computed and prints the same, byte for byte; a broken entry is computed again.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read(const fs::path& path) { return testing::read_file(path); }

// Every file of site `a` and of site `b`, and whether they differ.
void expect_same_site(const fs::path& a, const fs::path& b) {
  std::size_t files = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(a)) {
    if (!e.is_regular_file()) continue;
    ++files;
    fs::path other = b / fs::relative(e.path(), a);
    ASSERT_TRUE(fs::exists(other)) << other;
    EXPECT_EQ(read(e.path()), read(other)) << other;
  }
  EXPECT_GT(files, 50u);
}

testing::ShellRun run(const std::string& arguments) {
  return testing::run_binary(arguments, testing::source_dir(), "2>&1");
}

TEST(ResultCacheCli, ASecondBuildAndPlanReadWhatTheFirstComputed) {
  fs::path dir = testing::fresh_dir("result_cache_cli");
  fs::path cache = dir / "cache";
  ::setenv("OPENRECIPES_CACHE_DIR", cache.c_str(), 1);

  ASSERT_EQ(run("build --out '" + (dir / "a").string() + "'").exit_code, 0);
  std::vector<std::string> after_build = entries(cache);
  ASSERT_EQ(after_build.size(), 2u) << "the site's predictions and the recipes found clean";
  ASSERT_EQ(run("build --out '" + (dir / "b").string() + "'").exit_code, 0);
  EXPECT_EQ(entries(cache), after_build) << "read, not computed again";
  expect_same_site(dir / "a", dir / "b");

  testing::ShellRun plan = run("plan --calibration");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_EQ(entries(cache).size(), 3u) << "plan's fits are their own entry";
  EXPECT_EQ(run("plan --calibration").output, plan.output);
  EXPECT_EQ(entries(cache).size(), 3u);

  // A cut-short entry is a miss: computed again, the same site, the entry whole again.
  fs::path site_entry;
  for (const std::string& name : after_build) {
    if (read(cache / name).find("\"value\":[") == std::string::npos) site_entry = cache / name;
  }
  ASSERT_FALSE(site_entry.empty()) << "the predictions are an object, the clean recipes a list";
  std::string whole = read(site_entry);
  std::ofstream(site_entry, std::ios::trunc) << whole.substr(0, whole.size() / 3);
  ASSERT_EQ(run("build --out '" + (dir / "c").string() + "'").exit_code, 0);
  expect_same_site(dir / "a", dir / "c");
  EXPECT_EQ(read(site_entry), whole);

  // Set but empty: no cache is read or written.
  fs::remove_all(cache);
  ::setenv("OPENRECIPES_CACHE_DIR", "", 1);
  ASSERT_EQ(run("plan --calibration").output, plan.output);
  EXPECT_FALSE(fs::exists(cache));
  ::unsetenv("OPENRECIPES_CACHE_DIR");
}

// Recipes found clean are remembered by their bytes, path, the catalog's other inputs and the
// binary: an edited recipe is checked again, and so is every recipe once an input they are
// checked against changes, although their own bytes did not.
TEST(ResultCacheCli, RecipesFoundCleanAreCheckedAgainWhenTheyOrTheirContextChange) {
  fs::path root = testing::catalog_copy("clean_recipes_cli");
  fs::path cache = root / ".cache";
  ::setenv("OPENRECIPES_CACHE_DIR", cache.c_str(), 1);
  auto validate = [&] { return testing::run_binary("validate", root.string(), "2>&1"); };
  auto replace = [](const fs::path& path, const std::string& from, const std::string& to) {
    std::string text = testing::read_file(path);
    std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text.replace(at, from.size(), to);
  };
  const fs::path recipe = root / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";

  testing::ShellRun first = validate();
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_EQ(entries(cache).size(), 1u);
  std::string remembered = read(cache / entries(cache)[0]);
  EXPECT_EQ(validate().output, first.output);
  EXPECT_EQ(read(cache / entries(cache)[0]), remembered) << "nothing new to remember";

  replace(recipe, "usd_per_million_tokens: 0.23", "usd_per_million_tokens: 0.24");
  testing::ShellRun edited = validate();
  EXPECT_EQ(edited.exit_code, 1) << edited.output;
  EXPECT_NE(edited.output.find("usd_per_million_tokens"), std::string::npos) << edited.output;
  replace(recipe, "usd_per_million_tokens: 0.24", "usd_per_million_tokens: 0.23");
  EXPECT_EQ(validate().output, first.output);

  // The recipe's bytes are as remembered; the H200's peak it derives its MFU from is not.
  replace(root / "gpus.yaml",
          "slug: h200\n    memory_gb: 141\n    peak_bf16_dense_flop_per_s: 989.0e+12",
          "slug: h200\n    memory_gb: 141\n    peak_bf16_dense_flop_per_s: 900.0e+12");
  testing::ShellRun context = validate();
  EXPECT_EQ(context.exit_code, 1) << context.output;
  EXPECT_NE(context.output.find("mfu"), std::string::npos) << context.output;
  ::unsetenv("OPENRECIPES_CACHE_DIR");
}

// The site's predictions and plan's fits are keyed by what the recipes measured, not by their
// bytes: a comment added to a recipe reads both from the cache (the site then differs only in that
// recipe's own YAML); a recipe that no longer counts (unverified) computes them again.
TEST(ResultCacheCli, AnEditThatChangesNoMeasurementKeepsThePredictionsAndTheFits) {
  fs::path root = testing::catalog_copy("evidence_cli");
  fs::path cache = root / ".cache";
  ::setenv("OPENRECIPES_CACHE_DIR", cache.c_str(), 1);
  auto run_here = [&](const std::string& arguments) {
    return testing::run_binary(arguments, root.string(), "2>&1");
  };
  const fs::path recipe = root / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";

  ASSERT_EQ(run_here("build --out site_a").exit_code, 0);
  testing::ShellRun plan = run_here("plan --calibration");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  std::vector<std::string> before = entries(cache);
  ASSERT_EQ(before.size(), 3u) << "predictions, fits, recipes found clean";

  std::ofstream(recipe, std::ios::app) << "# a note that measures nothing\n";
  testing::ShellRun build = run_here("build --out site_b");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  EXPECT_EQ(run_here("plan --calibration").output, plan.output);
  EXPECT_EQ(entries(cache), before) << "read, not computed again";
  std::size_t differing = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / "site_a")) {
    if (!e.is_regular_file()) continue;
    fs::path other = root / "site_b" / fs::relative(e.path(), root / "site_a");
    ASSERT_TRUE(fs::exists(other)) << other;
    if (read(e.path()) != read(other)) {
      ++differing;
      EXPECT_NE(read(other).find("a note that measures nothing"), std::string::npos) << other;
    }
  }
  EXPECT_GE(differing, 1u);

  std::string text = testing::read_file(recipe);
  std::size_t at = text.find("status: verified");
  ASSERT_NE(at, std::string::npos);
  std::ofstream(recipe, std::ios::binary | std::ios::trunc)
      << text.replace(at, 16, "status: unverified");
  build = run_here("build --out site_c");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  EXPECT_EQ(entries(cache).size(), before.size() + 1) << "the predictions computed again";
  ::unsetenv("OPENRECIPES_CACHE_DIR");
}

}  // namespace
}  // namespace openrecipes
