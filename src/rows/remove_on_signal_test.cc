#include "rows/remove_on_signal.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

// A child process holds the guard over a file and is sent a signal: the file is gone and the
// child died of that signal.
TEST(RemoveOnSignal, AnInterruptRemovesTheFileAndStillEndsTheProcess) {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    std::string path = testing::fresh_dir("remove_on_signal") + "/partial.parquet.tmp";
    std::ofstream(path) << "half a file";
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      RemoveOnSignal guard(path);
      std::raise(signal_number);
      _exit(0);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << signal_number;
    EXPECT_EQ(WTERMSIG(status), signal_number);
    EXPECT_FALSE(std::filesystem::exists(path)) << signal_number;
  }
}

TEST(RemoveOnSignal, OutsideTheGuardSignalsLeaveTheFile) {
  std::string path = testing::fresh_dir("remove_on_signal_after") + "/rows.parquet";
  std::ofstream(path) << "a finished file";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    { RemoveOnSignal guard(path); }
    std::raise(SIGTERM);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(std::filesystem::exists(path));
}

// A file and a folder named for a process that has exited go; a live process's file, other names
// and a symbolic link stay.
TEST(RemoveStaleTemporaries, RemovesOnlyWhatDeadProcessesLeft) {
  namespace fs = std::filesystem;
  fs::path dir = testing::fresh_dir("stale_temporaries");
  long dead = testing::exited_child_pid();
  fs::path target = dir / "rows.parquet";
  fs::path dead_file = dir / fmt::format(".rows.parquet.tmp-{}", dead);
  fs::path live_file = dir / fmt::format(".rows.parquet.tmp-{}", ::getpid());
  std::ofstream(dead_file) << "half a file";
  std::ofstream(live_file) << "a concurrent run's file";
  fs::path dead_folder = dir / fmt::format(".site.new-{}-0badc0de", dead);
  fs::create_directories(dead_folder / "m/g");
  std::ofstream(dead_folder / "m/g/index.html") << "page";
  std::vector<fs::path> kept = {dir / fmt::format(".rows.parquet.tmp-{}x", dead),
                                dir / ".rows.parquet.tmp-", dir / ".rows.parquet.tmp-0",
                                dir / fmt::format(".other.parquet.tmp-{}", dead),
                                dir / fmt::format("rows.parquet.tmp-{}", dead)};
  for (const fs::path& path : kept) std::ofstream(path) << "not ours";
  fs::path link = dir / fmt::format(".rows.parquet.tmp-{}-link", dead);
  fs::create_symlink(dir / "rows.parquet", link);

  std::vector<StaleTemporary> rows = remove_stale_temporaries(target, "tmp");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].path, dead_file);
  EXPECT_EQ(rows[0].pid, dead);
  EXPECT_FALSE(rows[0].folder);
  EXPECT_FALSE(fs::exists(dead_file));
  EXPECT_TRUE(fs::exists(live_file)) << "a live process's file is never removed";
  for (const fs::path& path : kept) EXPECT_TRUE(fs::exists(path)) << path;
  EXPECT_TRUE(fs::is_symlink(link)) << "a symbolic link is not a temporary we wrote";

  std::vector<StaleTemporary> site = remove_stale_temporaries(dir / "site", "new");
  ASSERT_EQ(site.size(), 1u);
  EXPECT_TRUE(site[0].folder);
  EXPECT_FALSE(fs::exists(dead_folder));
  EXPECT_TRUE(remove_stale_temporaries(target, "tmp").empty()) << "nothing left to remove";
}

}  // namespace
}  // namespace openrecipes
