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
  ASSERT_EQ(after_build.size(), 1u) << "the site's predictions";
  ASSERT_EQ(run("build --out '" + (dir / "b").string() + "'").exit_code, 0);
  EXPECT_EQ(entries(cache), after_build) << "read, not computed again";
  expect_same_site(dir / "a", dir / "b");

  testing::ShellRun plan = run("plan --calibration");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_EQ(entries(cache).size(), 2u) << "plan's fits are their own entry";
  EXPECT_EQ(run("plan --calibration").output, plan.output);
  EXPECT_EQ(entries(cache).size(), 2u);

  // A cut-short entry is a miss: computed again, the same site, the entry whole again.
  fs::path site_entry = cache / after_build[0];
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

}  // namespace
}  // namespace openrecipes
