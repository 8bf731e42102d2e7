#include "rows/remove_on_signal.h"

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

}  // namespace
}  // namespace openrecipes
