#include "base/result_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

const std::string kKey = std::string(64, 'a');

TEST(ResultCache, AValueWrittenIsReadBackExactly) {
  ResultCache cache(testing::fresh_dir("cache") + "/made/on/write");
  EXPECT_FALSE(cache.read(kKey));
  nlohmann::json value = {{"x", 0.1 + 0.2}, {"names", {"a", "b"}}};
  ASSERT_TRUE(cache.write(kKey, value));
  std::optional<nlohmann::json> read = cache.read(kKey);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, value);
  EXPECT_EQ((*read)["x"].get<double>(), 0.1 + 0.2);  // the same double, not a rounded one
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(cache.dir()))
    files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{kKey + ".json"}) << "no temporary file is left";
}

TEST(ResultCache, ACutShortEditedOrMisplacedEntryIsAMiss) {
  ResultCache cache(testing::fresh_dir("cache"));
  ASSERT_TRUE(cache.write(kKey, {{"x", 1}}));
  fs::path file = fs::path(cache.dir()) / (kKey + ".json");
  std::string whole;
  {
    std::ifstream in(file);
    std::getline(in, whole);
  }
  std::ofstream(file) << whole.substr(0, whole.size() / 2);
  EXPECT_FALSE(cache.read(kKey)) << "cut short";
  std::ofstream(file) << nlohmann::json{{"key", std::string(64, 'b')}, {"value", 1}}.dump();
  EXPECT_FALSE(cache.read(kKey)) << "another key's entry under this name";
  std::ofstream(file) << std::string(100000, '[');
  EXPECT_FALSE(cache.read(kKey)) << "nested too deep for the parser";
  fs::remove(file);
  fs::create_directory(file);
  EXPECT_FALSE(cache.read(kKey)) << "a folder";
}

TEST(ResultCache, AFolderThatCannotBeMadeIsNotWritten) {
  std::string dir = testing::fresh_dir("cache");
  std::ofstream(dir + "/file") << "a file where the folder would go";
  ResultCache cache(dir + "/file/cache");
  EXPECT_FALSE(cache.write(kKey, 1));
  EXPECT_FALSE(cache.read(kKey));
}

TEST(ResultCache, KeepsTheNewestEntries) {
  ResultCache cache(testing::fresh_dir("cache"));
  auto now = fs::file_time_type::clock::now();
  for (std::size_t i = 0; i < kMaxCacheEntries; ++i) {
    std::string key = std::string(60, 'c') + std::to_string(1000 + i);
    ASSERT_TRUE(cache.write(key, i));
    // Older first, whatever the file system's time resolution.
    fs::last_write_time(fs::path(cache.dir()) / (key + ".json"),
                        now - std::chrono::hours(100 - static_cast<int>(i)));
  }
  fs::path dir(cache.dir());
  std::ofstream(dir / "notes.json") << "not the cache's";
  fs::path killed = dir / (kKey + ".json.tmp-1");
  fs::path running = dir / (kKey + ".json.tmp-2");
  std::ofstream(killed) << "{";
  std::ofstream(running) << "{";
  fs::last_write_time(killed, now - std::chrono::hours(2));
  fs::last_write_time(dir / "notes.json", now - std::chrono::hours(1000));
  EXPECT_TRUE(cache.read(std::string(60, 'c') + "1000")) << "read: used now";
  ASSERT_TRUE(cache.write(kKey, "newest"));
  EXPECT_TRUE(cache.read(kKey));
  EXPECT_TRUE(cache.read(std::string(60, 'c') + "1000"));
  EXPECT_FALSE(cache.read(std::string(60, 'c') + "1001")) << "the least recently used goes";
  EXPECT_TRUE(cache.read(std::string(60, 'c') + "1002"));
  EXPECT_TRUE(fs::exists(dir / "notes.json")) << "a file not named as an entry is never removed";
  EXPECT_FALSE(fs::exists(killed)) << "a killed run's temporary file, hours old";
  EXPECT_TRUE(fs::exists(running)) << "a running writer's temporary file";
  std::size_t entries = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    entries += e.path().extension() == ".json" && e.path().stem().string().size() == 64;
  EXPECT_EQ(entries, kMaxCacheEntries);
}

TEST(ResultCache, EntriesFromTheFutureDoNotCrowdOutANewOne) {
  ResultCache cache(testing::fresh_dir("cache"));
  auto later = fs::file_time_type::clock::now() + std::chrono::hours(24);  // clock skew
  for (std::size_t i = 0; i < kMaxCacheEntries; ++i) {
    std::string key = std::string(60, 'd') + std::to_string(1000 + i);
    ASSERT_TRUE(cache.write(key, i));
    fs::last_write_time(fs::path(cache.dir()) / (key + ".json"), later);
  }
  ASSERT_TRUE(cache.write(kKey, "new"));
  EXPECT_TRUE(cache.read(kKey));
}

TEST(ResultCache, NothingIsStoredWhenTheInputsChangedMeanwhileOrTheKeyIsNotADigest) {
  std::string dir = testing::fresh_dir("cache");
  bool current = false;
  ResultCache cache(dir, [&] { return current; });
  EXPECT_FALSE(cache.write(kKey, 1));
  EXPECT_FALSE(cache.read(kKey));
  current = true;
  EXPECT_TRUE(cache.write(kKey, 1));
  EXPECT_FALSE(cache.write("../escape", 1));
  EXPECT_FALSE(cache.write(std::string(64, 'A'), 1));
  EXPECT_FALSE(fs::exists(fs::path(dir).parent_path() / "escape.json"));
}

// Sets an environment variable for one test and puts it back after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedVariable() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ResultCache, TheFolderComesFromTheVariableThenXdgThenHome) {
  {
    ScopedVariable dir("OPENRECIPES_CACHE_DIR", "/somewhere");
    ScopedVariable xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(result_cache_dir(), "/somewhere");
  }
  {
    ScopedVariable dir("OPENRECIPES_CACHE_DIR", "");
    EXPECT_EQ(result_cache_dir(), std::nullopt) << "set but empty: no cache";
  }
  ScopedVariable dir("OPENRECIPES_CACHE_DIR", nullptr);
  {
    ScopedVariable xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(result_cache_dir(), "/xdg/openrecipes");
  }
  ScopedVariable xdg("XDG_CACHE_HOME", "relative");  // the specification ignores a relative one
  {
    ScopedVariable home("HOME", "/home/u");
    EXPECT_EQ(result_cache_dir(), "/home/u/.cache/openrecipes");
  }
  ScopedVariable home("HOME", nullptr);
  EXPECT_EQ(result_cache_dir(), std::nullopt);
}

TEST(ResultCache, TheBinaryHasABuildId) {
  // GCC and Clang on Debian link with --build-id (SHA-1 by default: 40 hex digits).
  std::string id = executable_build_id();
  EXPECT_GE(id.size(), 16u) << id;
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_EQ(executable_build_id(), id);
}

}  // namespace
}  // namespace openrecipes
